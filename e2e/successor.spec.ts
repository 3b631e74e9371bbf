// A shell that ends (here `exit 3`) is followed by a new one on the agent's next call; the
// page watching the ended shell links to it.
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

test("an ended shell's page links to the agent's new shell", async ({ page, jumpseat, agent }) => {
  expect((await jumpseat.bash(agent, 'echo first life')).output).toBe('first life');
  await jumpseat.login(page);
  await openShell(page, jumpseat, agent);
  expect((await jumpseat.bash(agent, 'exit 3')).output).toContain('[shell exited: code 3]');
  await expect(page.getByTestId('state')).toHaveText('exited');
  const successor = page.getByTestId('successor');
  await expect(successor).toContainText('This shell has ended');
  expect((await jumpseat.bash(agent, 'echo second life')).output).toBe('second life');
  await successor.getByRole('link').click();
  await expect.poll(() => screenOf(page)).toContain('second life');
  await expect(page.getByTestId('state')).toHaveText('idle');
});
