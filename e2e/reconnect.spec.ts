// The session page: the live connection drops in the middle of heavy output; the page
// resumes from its own position and ends up showing exactly what the shell printed —
// every line once, in order, none missing.
import { readFileSync } from 'node:fs';
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

/** 6,000 lines of 112 bytes (~670 kB), paced so that a drop lands mid-stream. */
const LINES = 6000;
const HEAVY =
  `for b in $(seq 0 59); do for i in $(seq $((b*100+1)) $((b*100+100))); do ` +
  `printf 'line %05d %0100d\\n' $i $i; done; sleep 0.05; done`;
const lineOf = (i: number) => `line ${String(i).padStart(5, '0')} ${String(i).padStart(100, '0')}`;

test('reconnect in the middle of heavy output loses nothing', async ({ page, jumpseat, agent }) => {
  await jumpseat.bashOk(agent, 'echo ready');
  await jumpseat.login(page);
  await openShell(page, jumpseat, agent);

  const call = jumpseat.bash(agent, HEAVY);
  const lastShown = async () =>
    Math.max(
      0,
      ...[...(await screenOf(page)).matchAll(/^line (\d{5}) /gm)].map((m) => Number(m[1])),
    );
  await expect.poll(lastShown, { intervals: [50] }).toBeGreaterThanOrEqual(100);
  const resumed = page.waitForEvent('websocket', (socket) => socket.url().includes('/live?from='));
  const atDrop = await page.evaluate(() => ({
    text: window.jumpseat.bufferText(),
    position: window.jumpseat.dropConnection(),
  }));
  // Mid-stream: some output shown, the end not yet printed.
  expect(atDrop.text).toContain(lineOf(100));
  expect(atDrop.text).not.toContain(lineOf(LINES));
  // The page's single-use ticket rides along (a page cannot send Authorization on a socket).
  expect((await resumed).url()).toMatch(
    new RegExp(`/live\\?from=${atDrop.position}&ticket=jst_[A-Za-z0-9_.-]+$`),
  );
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');

  const result = await call;
  expect(result.status).toBe(200);
  // The agent got the head and the path of the whole output: what the shell printed.
  const saved = /\[full output saved to (\S+)\]/.exec(result.output)?.[1];
  expect(saved).toBeDefined();
  const printed = readFileSync(saved ?? '', 'utf8')
    .trimEnd()
    .split('\n');
  expect(printed).toEqual(Array.from({ length: LINES }, (_, i) => lineOf(i + 1)));

  await expect.poll(() => screenOf(page)).toContain(lineOf(LINES));
  const shown = (await page.evaluate(() => window.jumpseat.bufferText()))
    .split('\n')
    .filter((line) => line.startsWith('line '));
  expect(shown).toEqual(printed);
  const screen = (await screenOf(page)).split('\n').filter((line) => line.startsWith('line '));
  expect(screen).toEqual(printed.slice(-screen.length));
  expect(screen.length).toBeGreaterThan(30);
  expect(await page.evaluate(() => window.jumpseat.position())).toBeGreaterThan(
    atDrop.position ?? 0,
  );
});
