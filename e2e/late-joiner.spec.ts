// The session page: a browser that opens a shell after its output was printed sees exactly
// the screen of a browser that watched it happen (the join snapshot). On jumpseat/playwright's
// fixtures: the shell, its page, and a second person's browser.
import { expect, terminalText, test } from '../playwright/src/index.ts';

const PAINT = [
  // Colours, a carriage-return progress line, cursor movement, wide characters, a long line.
  "printf '\\e[1;31mred\\e[0m \\e[42mgreen\\e[0m plain\\n'",
  "for i in 10 50 100; do printf '\\rprogress %3d%%' $i; done; echo",
  "printf 'abc\\e[2Dxy\\n'",
  "echo 'wide: 日本語 ✓ done'",
  'printf "%0150d\\n" 7',
  'seq 1 20',
].join('; ');

test('a late joiner sees the same screen', async ({ page, browser, jumpseat, shell }) => {
  expect(await shell.run('echo ready')).toBe('ready');
  await shell.watch(page);
  expect(await shell.run(PAINT)).toContain('progress 100%');
  await expect.poll(() => terminalText(page)).toMatch(/^20$/m);

  const { token } = await jumpseat.client.createToken({ role: 'viewer', name: 'Late Lou' });
  const late = await (await browser.newContext()).newPage();
  await shell.watch(late, { token });
  const early = await terminalText(page);
  expect(early).toContain('red green plain');
  expect(early).toContain('progress 100%');
  expect(early).toContain('axy');
  expect(early).toContain('wide: 日本語 ✓ done');
  await expect.poll(() => terminalText(late)).toBe(early);
  // The test's own copy of the screen, rebuilt from the same stream, agrees.
  await expect(shell).toShowText(/^progress 100%$/m);
  await expect(shell).toShowText('wide: 日本語 ✓ done');
  await late.context().close();
});
