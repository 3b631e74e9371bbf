/**
 * The page's terminal against output xterm.js 6.0 cannot take (server/test/terminal-defects
 * for the server): an agent prints what made xterm.js throw out of its write loop (the page's
 * terminal then stopped for good) and counts it ran one step at a time (the tab froze for most
 * of an hour). The watching page, a page opened later and the replay all show what came after.
 */
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

/** printf's format: ED 1 in the last cell of a cleared screen, then 2^31 − 1 counts. */
const ATTACKS = [
  String.raw`\033[H\033[2J\033[3J\033[40;120H\033[1J`,
  String.raw`\033[2147483647S\033[2147483647M`,
  String.raw`x\033[2147483647b\033[2147483647I`,
].join('');

test('a page keeps showing a shell whose output attacks its terminal', async ({
  page,
  browser,
  jumpseat,
  agent,
}) => {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  expect((await jumpseat.bash(agent, 'echo ready')).output).toBe('ready');
  await jumpseat.login(page);
  const session = await openShell(page, jumpseat, agent);

  const reply = await jumpseat.bash(agent, `printf '${ATTACKS}'; echo; echo after-attacks`);
  expect(reply.output).toContain('after-attacks');
  await expect.poll(() => screenOf(page)).toContain('after-attacks');
  // The page goes on showing what comes next.
  expect((await jumpseat.bash(agent, 'echo still-live')).output).toBe('still-live');
  await expect.poll(() => screenOf(page)).toContain('still-live');

  // A page opened now starts from the server's snapshot.
  const late = await browser.newPage();
  await jumpseat.login(late);
  await openShell(late, jumpseat, agent);
  await expect.poll(() => screenOf(late)).toContain('still-live');
  await late.close();

  // The replay plays the recorded bytes through the same terminal.
  await page.goto(`/sessions/${session.id}/replay`);
  const calls = page.getByTestId('replay-call');
  await expect(calls).toHaveCount(3);
  await calls.nth(2).getByTestId('replay-jump').click();
  await expect.poll(() => screenOf(page)).toContain('still-live');
  expect(errors).toEqual([]);
});
