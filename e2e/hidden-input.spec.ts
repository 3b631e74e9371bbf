// Hidden input stays hidden (issue 13): a person takes over at an agent's password prompt,
// types the password and releases; the agent is told only that a hidden answer was typed, and
// the calls every viewer can read do not hold it.
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

const SECRET = 'hunter2secret';

test('a password typed at read -s reaches neither the agent nor the stored calls', async ({
  page,
  jumpseat,
  agent,
}) => {
  await jumpseat.bashOk(agent, 'true');
  const waiting = await jumpseat.bash(
    agent,
    'read -s -p \'Password: \' pw; echo "got ${#pw} chars"',
  );
  expect(waiting.output).toBe('Password: \n[waiting for input: bash]');
  await jumpseat.login(page);
  const session = await openShell(page, jumpseat, agent);
  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(page.getByRole('button', { name: 'Release' })).toBeVisible();
  await page.getByTestId('terminal').click();
  await page.keyboard.type(SECRET);
  await page.keyboard.press('Enter');
  // An agent's shell: asked first (secret-warning.spec.ts), the person sends it anyway.
  await page.getByTestId('secret-question').getByRole('button', { name: 'Send anyway' }).click();
  await expect.poll(() => screenOf(page)).toMatch(/^Password: got 13 chars$/m);
  expect(await screenOf(page)).not.toContain(SECRET);
  await page.getByRole('button', { name: 'Release' }).click();
  await expect(page.getByTestId('controller')).toHaveText('The agent has the shell');

  const next = await jumpseat.bash(agent, 'echo after');
  expect(next.output).toBe('[a human used this shell: a hidden answer was typed]\nafter');
  const calls = await (await jumpseat.api(`/api/sessions/${session.id}/calls`)).text();
  expect(calls).toContain('a hidden answer was typed');
  expect(calls).not.toContain(SECRET);
  const recording = await (await jumpseat.api(`/api/sessions/${session.id}/recording`)).text();
  expect(recording).not.toContain(SECRET);
  // What every viewer reads on the page: the call's result as the agent got it.
  const call = page.getByTestId('call').first();
  await call.locator('summary').click();
  await expect(call.getByTestId('call-result')).toHaveText(next.output);
});
