/**
 * Replay in the browser: a shell's recording played back in our xterm view — jumping to a call
 * from the timeline plays its output, the scrubber seeks, and no call marker ever shows.
 */
import { expect, screenOf, test } from './support/fixtures.ts';

test('jumping to a call plays its output; the scrubber seeks; markers never show', async ({
  page,
  jumpseat,
  agent,
}) => {
  // The first frame shows before Play. A shell's first call can share it (the prompt may be
  // read after the call was typed, on a loaded machine): a call that prints nothing goes
  // first, so the calls whose output this test looks for all come after that frame.
  expect((await jumpseat.bash(agent, 'cd .')).output).toBe('');
  expect((await jumpseat.bash(agent, 'echo first-call-output')).output).toBe('first-call-output');
  expect((await jumpseat.bash(agent, 'seq 1 3 | sed s/^/second-/')).output).toBe(
    'second-1\nsecond-2\nsecond-3',
  );
  expect((await jumpseat.bash(agent, 'echo third-call-output; false')).output).toBe(
    'third-call-output\n[exit code: 1]',
  );
  const session = await jumpseat.sessionOf(agent);
  await jumpseat.login(page);
  await page.goto(`/sessions/${session.id}`);
  await page.getByTestId('replay-link').click();
  await expect(page).toHaveURL(`${jumpseat.origin}/sessions/${session.id}/replay`);

  const calls = page.getByTestId('replay-call');
  await expect(calls).toHaveCount(4);
  await expect(calls.nth(3)).toHaveAttribute('data-exit-code', '1');
  const starts = await page.evaluate(() => window.jumpseat.replay?.callStarts() ?? []);
  expect(starts).toHaveLength(4);
  expect(starts).toEqual([...starts].sort((a, b) => a - b));

  // At the start, nothing any call printed is on the screen yet.
  expect(await screenOf(page)).not.toContain('first-call-output');

  // The second call's jump plays it: its output appears, the third's not yet.
  await calls.nth(2).getByTestId('replay-jump').click();
  await expect(page.getByTestId('replay-controls')).toHaveAttribute('data-state', /playing|ended/);
  await expect.poll(() => screenOf(page)).toContain('second-1\nsecond-2\nsecond-3');
  // The prompt ends in `$` for a shell's own user (the server is root: shells drop to theirs).
  expect(await screenOf(page)).toMatch(/[#$] seq 1 3 \| sed s\/\^\/second-\//);

  // Played on, the jump ends with the recording (the calls after it took moments). Play and
  // Pause are not pressed here: Play at the end starts over, and a seek while playing plays on
  // from there, so what the scrubber shows would race the playback clock.
  await expect(page.getByTestId('replay-controls')).toHaveAttribute('data-state', 'ended');

  // The scrubber at the end shows the whole session; back at 0 the screen is empty again.
  const duration = await page.evaluate(() => window.jumpseat.replay?.duration() ?? 0);
  await page.getByTestId('replay-scrubber').fill(String(Math.ceil(duration)));
  await expect.poll(() => screenOf(page)).toContain('third-call-output');
  const everything = await page.evaluate(() => window.jumpseat.bufferText());
  expect(everything).toContain('first-call-output');
  for (const marker of ['end: ', 'echo first-call-output\necho first-call-output', '7717']) {
    expect(everything).not.toContain(marker);
  }
  await page.getByTestId('replay-scrubber').fill('0');
  await expect.poll(() => screenOf(page)).not.toContain('first-call-output');
  // Paused at 0, Play plays the session from its start.
  await page.getByTestId('replay-play').click();
  await expect(page.getByTestId('replay-controls')).toHaveAttribute('data-state', /playing|ended/);
  await expect.poll(() => screenOf(page)).toContain('first-call-output');

  // Each call opens to the exact text the agent got.
  await calls.nth(2).locator('summary').click();
  await expect(calls.nth(2).getByTestId('call-result')).toHaveText('second-1\nsecond-2\nsecond-3');
});

test('a shell that ended is still replayed, with how it ended', async ({
  page,
  jumpseat,
  agent,
}) => {
  await jumpseat.bash(agent, 'echo last-words');
  const session = await jumpseat.sessionOf(agent);
  expect((await jumpseat.bash(agent, 'exit 4')).output).toContain('[shell exited: code 4]');
  await jumpseat.login(page);
  await page.goto(`/sessions/${session.id}/replay`);
  await expect(page.getByTestId('replay-about')).toContainText('the shell exited (code 4)');
  await page.getByTestId('replay-call').nth(0).getByTestId('replay-jump').click();
  await expect.poll(() => screenOf(page)).toContain('last-words');
});
