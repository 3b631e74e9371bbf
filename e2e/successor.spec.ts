// A shell that ends (here `exit 3`) is followed by a new one on the agent's next call; the
// page watching the ended shell links to it. The fixture's shell follows it too.
import { expect, terminalText, test } from '../playwright/src/index.ts';

test("an ended shell's page links to the agent's new shell", async ({ page, shell }) => {
  expect(await shell.run('echo first life')).toBe('first life');
  await shell.watch(page);
  const first = shell.sessionId;
  expect(await shell.run('exit 3')).toContain('[shell exited: code 3]');
  await expect(page.getByTestId('state')).toHaveText('exited');
  const successor = page.getByTestId('successor');
  await expect(successor).toContainText('This shell has ended');
  expect(await shell.run('echo second life')).toBe('second life');
  expect(shell.sessionId).not.toBe(first);
  await successor.getByRole('link').click();
  await expect.poll(() => terminalText(page)).toContain('second life');
  await expect(page.getByTestId('state')).toHaveText('idle');
  await expect(shell).toShowText(/^second life$/m);
});
