// The session page as a viewer: watch only. Typing into the terminal reaches nothing.
import { expect, terminalText, test } from '../playwright/src/index.ts';

test("a viewer's typing changes nothing", async ({ page, jumpseat, shell }) => {
  expect(await shell.run('echo ready')).toBe('ready');
  const { token } = await jumpseat.client.createToken({ role: 'viewer', name: 'Vera' });
  await shell.watch(page, { token });
  await expect(page.getByRole('button', { name: 'Take over' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Interrupt' })).toBeDisabled();
  await expect(page.getByTestId('viewers')).toContainText('Vera viewer (you)');

  await page.getByTestId('terminal').click();
  await page.keyboard.type('touch viewer-was-here; echo viewer-typed');
  await page.keyboard.press('Enter');

  // A call after the typing is the sync point: by its end the keys went wherever they went.
  expect(await shell.run('ls viewer-was-here 2>&1; echo checked')).toBe(
    "ls: cannot access 'viewer-was-here': No such file or directory\nchecked",
  );
  await expect.poll(() => terminalText(page)).toMatch(/^checked$/m);
  expect(await terminalText(page)).not.toContain('viewer-typed');
  const session = await jumpseat.client.session(shell.sessionId ?? '');
  expect(session.controller).toBeNull();
  expect(session.state).toBe('idle');
});
