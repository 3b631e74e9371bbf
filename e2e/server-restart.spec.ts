/**
 * The web app comes back by itself: the server stops and starts again (same port, same data
 * dir) under an open dashboard and an open shell page; meanwhile each says "Reconnecting…",
 * and once the server is back each shows its state again without a reload. A page whose
 * first loads fail (the network dropped) keeps trying and fills in once they go through.
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

let root: string;
const running: ServerProcess[] = [];
test.beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-e2e-comeback-'));
});
test.afterEach(async () => {
  for (const server of running.splice(0)) await stopServerProcess(server);
  rmSync(root, { recursive: true, force: true });
});

interface Servers {
  readonly token: string;
  first(): Promise<ServerProcess>;
  /** The same data dir on the same port: a browser's sign-in belongs to its origin. */
  again(previous: ServerProcess): Promise<ServerProcess>;
  bash(server: ServerProcess, agent: string, command: string): Promise<string>;
}

function servers(): Servers {
  const dataDir = join(root, 'data');
  const token = `js_e2e_${randomBytes(18).toString('hex')}`;
  const start = async (flags: readonly string[]): Promise<ServerProcess> => {
    const server = await startServerProcess({ dataDir, token, flags });
    running.push(server);
    return server;
  };
  return {
    token,
    first: () => start([]),
    again: (previous) => start(['--port', new URL(previous.origin).port]),
    async bash(server, agent, command) {
      const response = await fetch(`${server.origin}/api/agents/${agent}/bash`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ command }),
      });
      const body = (await response.json()) as { output?: string };
      if (body.output === undefined)
        throw new Error(`bash ${command}: ${response.status} ${JSON.stringify(body)}`);
      return body.output;
    },
  };
}

test('the dashboard says Reconnecting… while the server is away and fills in again once it is back', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const run = servers();
  const first = await run.first();
  expect(await run.bash(first, 'comeback', 'echo before')).toBe('before');
  await page.goto(`${first.origin}/login?token=${run.token}`);
  const connection = page.getByTestId('connection');
  await expect(connection).toHaveAttribute('data-state', 'live');
  await expect(page.locator('[data-testid="session-row"][data-agent="comeback"]')).toHaveCount(1);

  await stopServerProcess(first);
  await expect(connection).toHaveAttribute('data-state', 'reconnecting');
  await expect(connection).toHaveText('Reconnecting…');

  const second = await run.again(first);
  await expect(connection).toHaveAttribute('data-state', 'live');
  // The shell ended with the first server: the dashboard's lists were loaded again.
  await expect(page.locator('[data-testid="session-row"][data-agent="comeback"]')).toHaveCount(0);
  await expect(
    page.locator('[data-testid="past-shell-row"][data-agent="comeback"]'),
  ).toHaveAttribute('data-state', 'ended');
  // And the live stream is the new server's: a new shell shows up as it starts.
  expect(await run.bash(second, 'comeback', 'echo after')).toBe('after');
  await expect(page.locator('[data-testid="session-row"][data-agent="comeback"]')).toHaveCount(1);
  expect(page.url()).toBe(`${second.origin}/`);
});

test("a shell's page says Reconnecting… while the server is away, then that the shell ended with it", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const run = servers();
  const first = await run.first();
  expect(await run.bash(first, 'gone-with-it', 'echo shown-before')).toBe('shown-before');
  await page.goto(`${first.origin}/login?token=${run.token}`);
  await page.locator('[data-testid="session-row"][data-agent="gone-with-it"] a').click();
  const connection = page.getByTestId('connection');
  await expect(connection).toHaveAttribute('data-state', 'live');
  const url = page.url();

  await stopServerProcess(first);
  await expect(connection).toHaveAttribute('data-state', 'reconnecting');
  await expect(connection).toHaveText('Reconnecting…');

  await run.again(first);
  const ended = page.getByTestId('shell-ended');
  await expect(ended).toBeVisible();
  await expect(ended).toContainText('This shell ended while jumpseat was away');
  await expect(connection).toHaveAttribute('data-state', 'closed');
  // The same page, not a reload: the calls it showed are still there, its replay one click on.
  expect(page.url()).toBe(url);
  await ended.getByRole('link').click();
  await expect(page).toHaveURL(`${url}/replay`);
  await expect(page.getByTestId('replay-call')).toHaveCount(1);
});

test('a page whose loads fail (the network dropped) says Reconnecting… and fills in once they go through', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const run = servers();
  const first = await run.first();
  await page.goto(`${first.origin}/login?token=${run.token}`);
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  let networkUp = false;
  await page.route('**/api/tokens', (route) => (networkUp ? route.continue() : route.abort()));
  await page.goto(`${first.origin}/tokens`);
  const connection = page.getByTestId('connection');
  await expect(connection).toHaveAttribute('data-state', 'reconnecting');
  await expect(connection).toHaveText('Reconnecting…');
  networkUp = true;
  await expect(page.getByTestId('tokens')).toBeVisible();
  // The Tokens page has no live stream: once loaded it shows no connection pill at all.
  await expect(connection).toBeHidden();
});
