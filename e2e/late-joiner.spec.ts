// The session page: a browser that opens a shell after its output was printed sees exactly
// the screen of a browser that watched it happen (the join snapshot).
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

const PAINT = [
  // Colours, a carriage-return progress line, cursor movement, wide characters, a long line.
  "printf '\\e[1;31mred\\e[0m \\e[42mgreen\\e[0m plain\\n'",
  "for i in 10 50 100; do printf '\\rprogress %3d%%' $i; done; echo",
  "printf 'abc\\e[2Dxy\\n'",
  "echo 'wide: 日本語 ✓ done'",
  'printf "%0150d\\n" 7',
  'seq 1 20',
].join('; ');

test('a late joiner sees the same screen', async ({ page, browser, jumpseat, agent }) => {
  expect((await jumpseat.bash(agent, 'echo ready')).status).toBe(200);
  await jumpseat.login(page);
  await openShell(page, jumpseat, agent);
  const result = await jumpseat.bash(agent, PAINT);
  expect(result.output).toContain('progress 100%');
  await expect.poll(() => screenOf(page)).toMatch(/^20$/m);

  const late = await jumpseat.person(browser, await jumpseat.mint('viewer', 'Late Lou'));
  await openShell(late, jumpseat, agent);
  const early = await screenOf(page);
  expect(early).toContain('red green plain');
  expect(early).toContain('progress 100%');
  expect(early).toContain('axy');
  expect(early).toContain('wide: 日本語 ✓ done');
  await expect.poll(() => screenOf(late)).toBe(early);
  await late.context().close();
});
