/**
 * Yesterday's shell after a restart, in the browser: a server of its own runs an agent's calls
 * and a person takes and hands back the controls; after the server is stopped and started
 * again on the same data dir, the dashboard lists the shell under Past shells and its replay
 * shows the calls, who took the controls, and the output.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, screenOf, test } from './support/fixtures.ts';
import {
  type ServerProcess,
  startServerProcess,
  stopServerProcess,
} from './support/server-process.ts';

let root: string;
const running: ServerProcess[] = [];
test.beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-e2e-restart-'));
});
test.afterEach(async () => {
  for (const server of running.splice(0)) await stopServerProcess(server);
  rmSync(root, { recursive: true, force: true });
});

test('after a restart the past shell is listed and replayed with its calls and who took the controls', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const dataDir = join(root, 'data');
  const token = `js_e2e_${randomBytes(18).toString('hex')}`;
  const first = await startServerProcess({ dataDir, token });
  running.push(first);
  const bash = async (origin: string, command: string): Promise<string> => {
    const response = await fetch(`${origin}/api/agents/yesterday/bash`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command }),
    });
    return ((await response.json()) as { output: string }).output;
  };
  expect(await bash(first.origin, 'echo yesterday-output')).toBe('yesterday-output');

  await page.goto(`${first.origin}/login?token=${token}`);
  await page.locator('[data-testid="session-row"][data-agent="yesterday"] a').click();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(page.getByRole('button', { name: 'Release' })).toBeEnabled();
  await page.getByRole('button', { name: 'Release' }).click();
  await expect(page.getByRole('button', { name: 'Take over' })).toBeEnabled();
  expect(await bash(first.origin, 'echo after-release')).toBe('after-release');
  await stopServerProcess(first);

  const second = await startServerProcess({ dataDir, token });
  running.push(second);
  await page.goto(`${second.origin}/login?token=${token}`);
  const row = page.locator('[data-testid="past-shell-row"][data-agent="yesterday"]');
  await expect(row).toHaveAttribute('data-state', 'ended');
  await expect(row.getByTestId('past-shell-ending')).toHaveText('closed with the server');
  const id = await row.getAttribute('data-session-id');
  await row.getByTestId('replay-link').click();

  const calls = page.getByTestId('replay-call');
  await expect(calls).toHaveCount(2);
  const events = page.getByTestId('replay-control-event');
  await expect(events).toHaveCount(2);
  await expect(events.nth(0)).toHaveAttribute('data-kind', 'take');
  await expect(events.nth(1)).toHaveAttribute('data-kind', 'release');
  await expect(events.nth(0)).toHaveAttribute('data-name', 'admin');
  await calls.nth(0).locator('summary').click();
  await expect(calls.nth(0).getByTestId('call-result')).toHaveText('yesterday-output');
  await calls.nth(0).getByTestId('replay-jump').click();
  await expect.poll(() => screenOf(page)).toContain('yesterday-output');
  expect(await screenOf(page)).not.toContain('end: ');

  // The past shell's own page (an old link to it) leads to its replay.
  await page.goto(`${second.origin}/sessions/${id}`);
  await expect(page).toHaveURL(`${second.origin}/sessions/${id}/replay`);
  await expect(page.getByTestId('replay-call')).toHaveCount(2);
});
