// The session page as a viewer: watch only. Typing into the terminal reaches nothing.
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

test("a viewer's typing changes nothing", async ({ page, jumpseat, agent }) => {
  expect((await jumpseat.bash(agent, 'echo ready')).status).toBe(200);
  await jumpseat.login(page, await jumpseat.mint('viewer', 'Vera'));
  await openShell(page, jumpseat, agent);
  await expect(page.getByRole('button', { name: 'Take over' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Interrupt' })).toBeDisabled();
  await expect(page.getByTestId('viewers')).toContainText('Vera viewer (you)');

  await page.getByTestId('terminal').click();
  await page.keyboard.type('touch viewer-was-here; echo viewer-typed');
  await page.keyboard.press('Enter');

  // A call after the typing is the sync point: by its end the keys went wherever they went.
  const after = await jumpseat.bash(agent, 'ls viewer-was-here 2>&1; echo checked');
  expect(after.output).toBe(
    "ls: cannot access 'viewer-was-here': No such file or directory\nchecked",
  );
  await expect.poll(() => screenOf(page)).toMatch(/^checked$/m);
  expect(await screenOf(page)).not.toContain('viewer-typed');
  const session = await jumpseat.sessionOf(agent);
  expect(session.controller).toBeNull();
  expect(session.state).toBe('idle');
});
