// From the dashboard to the answer: a prompting command shows `waiting_input`, visibly calling
// for a human; the human opens the shell, takes over, answers, and the command completes.
import { expect, screenOf, test } from './support/fixtures.ts';

test('a prompting command shows waiting_input and a human answers it', async ({
  page,
  jumpseat,
  agent,
}) => {
  await jumpseat.login(page, await jumpseat.mint('operator', 'Olga'));
  const asked = await jumpseat.bash(agent, "read -p 'name? ' n; echo hi $n");
  expect(asked.output).toBe('name? \n[waiting for input: bash]');

  const row = page.locator(`[data-testid="session-row"][data-agent="${agent}"]`);
  await expect(row).toHaveAttribute('data-state', 'waiting_input');
  await expect(row.getByTestId('state')).toHaveText('waiting for input — needs a human');
  await expect(page.getByText('waiting for input:')).toBeVisible();

  await row.getByRole('link', { name: agent }).click();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await expect(page.getByTestId('call').first()).toHaveAttribute('data-outcome', 'waiting_input');
  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(page.getByRole('button', { name: 'Release' })).toBeVisible();
  await page.getByTestId('terminal').click();
  await page.keyboard.type('Bob');
  await page.keyboard.press('Enter');
  await expect.poll(() => screenOf(page)).toMatch(/^hi Bob$/m);
  await page.getByRole('button', { name: 'Release' }).click();
  await expect(page.getByTestId('state')).toHaveText('idle');

  // The command finished in the agent's shell: its variable is there for the next call.
  const next = await jumpseat.bash(agent, 'echo "n=$n"');
  expect(next.output).toMatch(/^\[a human used this shell: .*\]\nn=Bob$/);
});
