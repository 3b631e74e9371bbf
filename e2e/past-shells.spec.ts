/**
 * Past shells a page at a time: a server of its own runs 23 agents' shells, is restarted on
 * the same data dir, and the dashboard pages through them newest first and searches them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './support/fixtures.ts';
import {
  type ServerProcess,
  startServerProcess,
  stopServerProcess,
} from './support/server-process.ts';

const SHELLS = 23;
let root: string;
const running: ServerProcess[] = [];
test.beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-e2e-past-'));
});
test.afterEach(async () => {
  for (const server of running.splice(0)) await stopServerProcess(server);
  rmSync(root, { recursive: true, force: true });
});

test('pages through past shells twenty at a time and searches them', async ({ page }) => {
  test.setTimeout(120_000);
  const dataDir = join(root, 'data');
  const token = `js_e2e_${randomBytes(18).toString('hex')}`;
  const first = await startServerProcess({ dataDir, token });
  running.push(first);
  for (let i = 1; i <= SHELLS; i++) {
    const response = await fetch(`${first.origin}/api/agents/past-${i}/bash`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'true' }),
    });
    // The body says why a start was refused (SHELL_UNAVAILABLE says what bash printed).
    expect(response.status, await response.text()).toBe(200);
  }
  await stopServerProcess(first);
  const second = await startServerProcess({ dataDir, token });
  running.push(second);

  await page.goto(`${second.origin}/login?token=${token}`);
  const rows = page.getByTestId('past-shell-row');
  await expect(rows).toHaveCount(20);
  await expect(page.getByTestId('past-page')).toHaveText(`1–20 of ${SHELLS}`);
  await expect(rows.first()).toHaveAttribute('data-agent', `past-${SHELLS}`);
  await page.getByRole('button', { name: 'Older ›' }).click();
  await expect(rows).toHaveCount(SHELLS - 20);
  await expect(page.getByTestId('past-page')).toHaveText(`21–${SHELLS} of ${SHELLS}`);
  await expect(page.getByRole('button', { name: 'Older ›' })).toBeDisabled();
  await page.getByLabel('Search past shells').fill('past-1');
  // past-1 and past-10 … past-19.
  await expect(rows).toHaveCount(11);
  await expect(page.getByTestId('past-page')).toHaveText('1–11 of 11');
  await page.getByLabel('Search past shells').fill('no-such-agent');
  await expect(rows).toHaveCount(0);
  await expect(page.getByTestId('past-page')).toHaveText('no match');
});
