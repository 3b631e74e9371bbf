// Handing a person's shell to an agent: the shell, in the directory the person left it and
// with their shell variable, becomes the agent's, and the agent's next call runs in it.
// Handing a second shell to the same agent is refused with the server's reason.
import { randomBytes } from 'node:crypto';
import { expect, test } from './support/fixtures.ts';
import { openOwnShell, run } from './support/sharing.ts';

test('a shell handed to an agent keeps its cwd and variables; a second is refused', async ({
  page,
  jumpseat,
}) => {
  // Two shells, a hand-off and an agent call: more steps than most specs, so more time on a busy CI box.
  test.slow();
  const suffix = randomBytes(3).toString('hex');
  const agent = `a-handoff-${suffix}`;
  const dir = `${jumpseat.workspace}/unusual dir ${suffix}`;
  await jumpseat.login(page, await jumpseat.mint('operator', 'Ann'));
  const sessionId = await openOwnShell(page);
  await run(page, `mkdir -p '${dir}' && cd '${dir}' && HANDOFF_VAR=kept-${suffix}`, 'setup');

  const panel = page.getByTestId('hand-off');
  await panel.getByRole('button', { name: 'Hand to agent…' }).click();
  await panel.getByLabel('Agent id').fill(agent);
  await panel.getByRole('button', { name: 'Hand off' }).click();
  await expect(page.locator('.session-title')).toHaveText(`${agent} · bash`);
  await expect(page.getByTestId('controller')).toHaveText('The agent has the shell');
  await expect(panel).toBeHidden();

  const reply = await jumpseat.bash(agent, 'pwd; echo $HANDOFF_VAR');
  expect(reply.status).toBe(200);
  expect(reply.output).toMatch(new RegExp(`(^|\\n)${dir}\\nkept-${suffix}$`));
  expect((await jumpseat.sessionOf(agent)).id).toBe(sessionId);
  await expect(page.getByTestId('call').first()).toHaveAttribute('data-outcome', 'completed');
  // The timeline tells the hand-off where it happened.
  await expect(page.locator('[data-testid="control-event"][data-kind="hand_off"]')).toHaveText(
    new RegExp(`^Handed to agent ${agent}`),
  );

  // The agent has a live bash shell now: a second one cannot be handed to it.
  await page.goto('/');
  // New shell offers pwsh exactly when the server runs it.
  const tools = (await (await jumpseat.api('/api/tools')).json()) as { name: string }[];
  const dialects = page.getByTestId('new-shell').getByLabel('Shell');
  if (tools.some((tool) => tool.name === 'pwsh')) {
    await expect(dialects.locator('option')).toHaveText(['bash', 'pwsh']);
  } else {
    await expect(dialects).toBeHidden();
  }
  const handed = page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);
  await expect(handed).toHaveAttribute('data-agent', agent);
  await expect(handed).toHaveAttribute('data-yours', 'false');
  const secondId = await openOwnShell(page);
  const second = page.getByTestId('hand-off');
  await second.getByRole('button', { name: 'Hand to agent…' }).click();
  await second.getByLabel('Agent id').fill(agent);
  await second.getByRole('button', { name: 'Hand off' }).click();
  await expect(second.getByTestId('hand-off-error')).toContainText(agent);
  await expect(page.locator('.session-title')).toHaveText('Ann (person) · bash');

  await page.getByRole('button', { name: 'Close shell' }).click();
  await page.getByRole('button', { name: 'Close it' }).click();
  await expect(page.getByTestId('state')).toHaveText('exited');

  await page.goto('/');
  const closed = page.locator(`[data-testid="session-row"][data-session-id="${secondId}"]`);
  await expect(closed).toHaveAttribute('data-yours', 'true');
  await expect(closed).toHaveAttribute('data-state', 'exited');
  await expect(closed.getByRole('link')).toHaveText('Ann (person)');
});
