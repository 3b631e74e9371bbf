// The session page: an agent's output appears live, while its call still runs, in two
// browsers at once (the admin and a viewer).
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

test('agent output appears live in two browsers', async ({ page, browser, jumpseat, agent }) => {
  expect((await jumpseat.bash(agent, 'echo ready')).output).toBe('ready');
  await jumpseat.login(page);
  await openShell(page, jumpseat, agent);
  const viewer = await jumpseat.person(browser, await jumpseat.mint('viewer', 'Vic'));
  await openShell(viewer, jumpseat, agent);

  let finished = false;
  // The second line waits for a file the test creates, so the first is seen mid-call.
  const call = jumpseat
    .bash(
      agent,
      `echo live-one-$((6*7)); while [ ! -e ${agent}.go ]; do sleep 0.05; done; echo live-two-$((7*7))`,
    )
    .finally(() => {
      finished = true;
    });
  for (const person of [page, viewer]) {
    await expect.poll(() => screenOf(person)).toContain('live-one-42');
    await expect(person.getByTestId('state')).toHaveText('running');
  }
  expect(finished).toBe(false);

  expect(
    (await jumpseat.bash(`${agent}-helper`, `touch ${jumpseat.workspace}/${agent}.go`)).status,
  ).toBe(200);
  expect((await call).output).toBe('live-one-42\nlive-two-49');
  for (const person of [page, viewer]) {
    await expect.poll(() => screenOf(person)).toContain('live-two-49');
    await expect(person.getByTestId('call').first()).toHaveAttribute('data-outcome', 'completed');
  }
  await viewer.context().close();
});
