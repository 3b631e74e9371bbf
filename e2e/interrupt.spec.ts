// The session page: Interrupt sends Ctrl-C to what runs, without taking the keyboard.
import { expect, openShell, test } from './support/fixtures.ts';

test('Interrupt stops the running command and the agent is told who stopped it', async ({
  page,
  jumpseat,
  agent,
}) => {
  await jumpseat.bashOk(agent, 'echo ready');
  await jumpseat.login(page, await jumpseat.mint('operator', 'Ida'));
  await openShell(page, jumpseat, agent);
  const call = jumpseat.bash(agent, 'sleep 300');
  await expect(page.getByTestId('state')).toHaveText('running');
  await page.getByRole('button', { name: 'Interrupt' }).click();
  expect((await call).output).toBe(
    '[a human used this shell: interrupted the running command]\n[exit code: 130]',
  );
  await expect(page.getByTestId('call').first()).toHaveAttribute('data-exit-code', '130');
  await expect(page.getByTestId('controller')).toHaveText('The agent has the shell');
});
