/**
 * A dashboard of many shells draws only the rows in and near the viewport (web/src/row-window.ts):
 * with 400 live shells (a server of its own, `--sandbox off`: cheap shells) a bounded number of
 * rows is in the document, yet the list scrolls to its last shell, screen readers are told
 * every row's place (aria-rowcount, aria-rowindex), the Filter box finds any one shell, and
 * Tab walks on through the rows past those first drawn.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './support/fixtures.ts';
import {
  type ServerProcess,
  startServerProcess,
  stopServerProcess,
} from './support/server-process.ts';

const SHELLS = 400;
/** Rows drawn at most: the viewport's and a margin on each side, never the whole list. */
const MAX_ROWS = 120;

let root: string;
let server: ServerProcess | undefined;
test.afterEach(async () => {
  if (server !== undefined) await stopServerProcess(server);
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

test('400 shells: a bounded number of rows drawn, the last one reached by scrolling, any one found by the filter', async ({
  page,
}) => {
  test.setTimeout(240_000);
  root = mkdtempSync(join(tmpdir(), 'jumpseat-e2e-window-'));
  mkdirSync(join(root, 'workspace'));
  const token = `js_e2e_${randomBytes(18).toString('hex')}`;
  server = await startServerProcess({
    dataDir: join(root, 'data'),
    workspace: join(root, 'workspace'),
    token,
    flags: ['--sandbox', 'off', '--network', 'off'],
  });
  const origin = server.origin;
  const names = Array.from({ length: SHELLS }, (_, i) => `many-${String(i).padStart(3, '0')}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < names.length) {
        const name = names[next++] as string;
        const response = await fetch(`${origin}/api/agents/${name}/bash`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ command: 'true' }),
        });
        expect(response.status, name).toBe(200);
      }
    }),
  );

  await page.goto(`${origin}/login?token=${token}`);
  await expect(page).toHaveURL(`${origin}/`);
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await expect(page.getByTestId('shown-count')).toHaveText(`${SHELLS} shells`);
  const rows = page.locator('[data-testid="session-row"]');
  await expect(rows.first()).toHaveAttribute('data-agent', names[0] as string);
  const drawn = await rows.count();
  expect(drawn).toBeGreaterThan(10);
  expect(drawn).toBeLessThanOrEqual(MAX_ROWS);
  // Screen readers hear the whole list's size and each row's place in it (the header is 1).
  await expect(page.locator('table.live-sessions')).toHaveAttribute(
    'aria-rowcount',
    String(SHELLS + 1),
  );
  await expect(rows.first()).toHaveAttribute('aria-rowindex', '2');

  // Rows are laid out as rows of their own, not as a table's (style.css): they still are a
  // table, rows and cells to a screen reader, and each cell sits under its column's header.
  const table = page.getByRole('table');
  await expect(table.getByRole('columnheader', { name: 'State' })).toHaveCount(1);
  await expect(rows.first().getByRole('cell')).toHaveCount(9);
  const lineUp = await page.evaluate(() => {
    const edges = (cells: ArrayLike<Element>) =>
      Array.from(cells).map((cell) => {
        const box = cell.getBoundingClientRect();
        return `${Math.round(box.left)}+${Math.round(box.width)}`;
      });
    const row = document.querySelector('[data-testid="session-row"]');
    return {
      header: edges(document.querySelectorAll('table.live-sessions thead th')),
      row: edges(row === null ? [] : row.children),
    };
  });
  expect(lineUp.row).toEqual(lineUp.header);

  // A state change reaches a row that was not drawn: a call on a shell far down the list brings
  // it to the top while it runs (running shells come first), its place told, then back down.
  const far = names[SHELLS - 3] as string;
  const farRow = page.locator(`[data-testid="session-row"][data-agent="${far}"]`);
  await expect(farRow).toHaveCount(0);
  const stop = join(root, 'workspace', `${far}.stop`);
  const farCall = fetch(`${origin}/api/agents/${far}/bash`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command: `until [ -e ${stop} ]; do sleep 0.05; done; echo done` }),
  });
  await expect(rows.first()).toHaveAttribute('data-agent', far);
  await expect(rows.first()).toHaveAttribute('data-state', 'running');
  await expect(rows.first()).toHaveAttribute('aria-rowindex', '2');
  await expect(rows.nth(1)).toHaveAttribute('data-agent', names[0] as string);
  await expect(rows.nth(1)).toHaveAttribute('aria-rowindex', '3');
  writeFileSync(stop, '');
  const answer = await farCall;
  expect(answer.status).toBe(200);
  expect(((await answer.json()) as { output: string }).output).toBe('done');
  await expect(farRow).toHaveCount(0);
  await expect(rows.first()).toHaveAttribute('data-agent', names[0] as string);
  rmSync(stop);

  // Tab walks on through the rows past the first drawn: the list follows the focus. Frames are
  // held back meanwhile (as a loaded machine may): the focus is followed at once, not a frame
  // later, else a Tab on the last row drawn would walk off the list to the page's start.
  await rows.first().locator('a.agent').focus();
  await page.evaluate(() => {
    const held: FrameRequestCallback[] = [];
    const real = window.requestAnimationFrame;
    window.requestAnimationFrame = (callback) => held.push(callback);
    Object.assign(window, {
      releaseFrames: () => {
        window.requestAnimationFrame = real;
        for (const callback of held) real(callback);
      },
    });
  });
  for (let i = 0; i < MAX_ROWS + 20; i++) await page.keyboard.press('Tab');
  await page.evaluate(() => (window as unknown as { releaseFrames: () => void }).releaseFrames());
  const focused = await page.evaluate(
    () =>
      (document.activeElement?.closest('[data-testid="session-row"]') as HTMLElement | null)
        ?.dataset.agent,
  );
  expect(focused).toBe(names[MAX_ROWS + 20]);

  // The end of the page: the last shell's row, with its place in the list.
  const last = page.locator(`[data-testid="session-row"][data-agent="${names[SHELLS - 1]}"]`);
  // To the end, as End does (again while the page below the list is still filling in).
  await expect
    .poll(async () => {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      return last.count();
    })
    .toBe(1);
  await expect(last).toBeVisible();
  await expect(last).toHaveAttribute('aria-rowindex', String(SHELLS + 1));
  expect(await rows.count()).toBeLessThanOrEqual(MAX_ROWS);
  // Its link opens the shell.
  await expect(last.locator('a.agent')).toHaveAttribute('href', /\/sessions\//);

  // The filter finds any one of them, wherever it was in the list.
  const middle = names[Math.floor(SHELLS / 2) + 7] as string;
  await page.getByLabel('Filter').fill(middle);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-agent', middle);
  await expect(rows.first()).toBeVisible();
  await expect(page.getByTestId('shown-count')).toHaveText(`1 of ${SHELLS} shells`);
  // Back to all: a bounded number of rows again, the first at the top.
  await page.getByLabel('Filter').fill('');
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(rows.first()).toHaveAttribute('data-agent', names[0] as string);
  expect(await rows.count()).toBeLessThanOrEqual(MAX_ROWS);
});
