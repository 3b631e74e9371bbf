// The session page: an operator takes over, types, the agent is refused meanwhile, the
// operator hands back, and the agent's next result says a human used the shell.
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

test('take over, type, agent gets 409, release, agent result carries the human line', async ({
  page,
  jumpseat,
  agent,
}) => {
  await jumpseat.bashOk(agent, 'echo ready');
  await jumpseat.login(page, await jumpseat.mint('operator', 'Ann'));
  await openShell(page, jumpseat, agent);

  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(page.getByRole('button', { name: 'Release' })).toBeVisible();
  await expect(page.getByTestId('controller')).toHaveText(
    'You have control — type in the terminal',
  );
  await expect(page.getByTestId('state')).toHaveText('human in control');
  expect((await jumpseat.sessionOf(agent)).controller).toBe('Ann');

  await page.getByTestId('terminal').click();
  await page.keyboard.type('echo typed-by-$((40+2))');
  await page.keyboard.press('Enter');
  await expect.poll(() => screenOf(page)).toMatch(/^typed-by-42$/m);

  const refused = await jumpseat.bash(agent, 'echo agent');
  expect(refused.status).toBe(409);
  expect(refused.code).toBe('HUMAN_CONTROL');

  await page.getByRole('button', { name: 'Fit to window' }).click();
  const size = async () => {
    const { cols, rows } = await jumpseat.sessionOf(agent);
    return `${cols}x${rows}`;
  };
  await expect.poll(size).not.toBe('120x40');

  await page.getByRole('button', { name: 'Release' }).click();
  await expect(page.getByRole('button', { name: 'Take over' })).toBeEnabled();
  await expect(page.getByTestId('controller')).toHaveText('The agent has the shell');
  await expect.poll(size).toBe('120x40');

  const next = await jumpseat.bash(agent, 'echo agent-again');
  expect(next.status).toBe(200);
  expect(next.output).toMatch(/^\[a human used this shell: .*typed-by-.*\]\nagent-again$/);
  const call = page.getByTestId('call').first();
  await expect(call).toHaveAttribute('data-outcome', 'completed');
  await expect(call).toHaveAttribute('data-exit-code', '0');
  await call.locator('summary').click();
  await expect(call.getByTestId('call-result')).toHaveText(next.output);
});
