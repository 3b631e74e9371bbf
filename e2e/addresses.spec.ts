/**
 * Addresses: with `--public-url` every link the server gives (share links, the dashboard's
 * example) names it, not the host the creator typed; a share link that expired says it
 * expired, and one that was revoked says it was revoked. A server of its own, restarted once
 * with one link's time run out in its tokens file.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ShareCreated } from '../shared/src/api.ts';
import { expect, test } from './support/fixtures.ts';
import {
  type ServerProcess,
  startServerProcess,
  stopServerProcess,
} from './support/server-process.ts';
import { createLink, openOwnShell, tokenOf } from './support/sharing.ts';

const PUBLIC_URL = 'https://jumpseat.example.test/';
let root: string;
const running: ServerProcess[] = [];
test.beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-e2e-addresses-'));
});
test.afterEach(async () => {
  for (const server of running.splice(0)) await stopServerProcess(server);
  rmSync(root, { recursive: true, force: true });
});

test('links name the public URL; an expired link says expired, a revoked one says revoked', async ({
  page,
  browser,
  jumpseat,
}) => {
  test.setTimeout(120_000);
  const dataDir = join(root, 'data');
  const token = `js_e2e_${randomBytes(18).toString('hex')}`;
  const options = { dataDir, token, flags: ['--public-url', PUBLIC_URL] };
  const first = await startServerProcess(options);
  running.push(first);
  const api = (origin: string, path: string, init: RequestInit = {}) =>
    fetch(`${origin}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });

  await page.goto(`${first.origin}/login?token=${token}`);
  await expect(page.locator('.empty pre')).toContainText(
    `curl -s -X POST ${PUBLIC_URL}api/agents/demo/bash`,
  );
  const sessionId = await openOwnShell(page);
  const shown = await createLink(page, 'Watch only');
  expect(shown.startsWith(`${PUBLIC_URL}login?token=`)).toBe(true);

  const mint = async (body: object): Promise<ShareCreated> => {
    const response = await api(first.origin, `/api/sessions/${sessionId}/shares`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as ShareCreated;
  };
  const expiring = await mint({ role: 'viewer', expiresInSeconds: 60 });
  const revoked = await mint({ role: 'viewer' });
  expect(expiring.url).toBe(`${PUBLIC_URL}login?token=${encodeURIComponent(expiring.token)}`);

  // Each holder opens their link (at the server's real address) and gives a name.
  const holders = [];
  for (const [link, name] of [
    [expiring, 'Eve'],
    [revoked, 'Rex'],
  ] as const) {
    const holder = await jumpseat.stranger(browser);
    await holder.goto(`${first.origin}/login?token=${encodeURIComponent(tokenOf(link.url))}`);
    await holder.getByTestId('name-prompt').getByLabel('Your name').fill(name);
    await holder.getByTestId('name-prompt').getByRole('button', { name: 'Join' }).click();
    await expect(holder.getByTestId('connection')).toHaveAttribute('data-state', 'live');
    holders.push(holder);
  }
  const [eve, rex] = holders;
  if (eve === undefined || rex === undefined) throw new Error('no holders');
  // Revoked while watching: the page says so at once.
  const revoke = await fetch(
    `${first.origin}/api/sessions/${sessionId}/shares/${revoked.share.id}`,
    {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    },
  );
  expect(revoke.status).toBe(204);
  await expect(rex.getByTestId('notice')).toHaveAttribute('data-problem', 'revoked');
  await stopServerProcess(first);

  // The expiring link's time runs out while the server is down.
  const file = join(dataDir, 'tokens.json');
  const saved = JSON.parse(readFileSync(file, 'utf8')) as {
    tokens: { id: string; expiresAt?: string }[];
  };
  for (const record of saved.tokens) {
    if (record.id === expiring.share.id)
      record.expiresAt = new Date(Date.now() - 1000).toISOString();
  }
  writeFileSync(file, JSON.stringify(saved));
  // On the same port: a browser's sign-in belongs to one origin (scheme, host and port).
  const second = await startServerProcess({
    ...options,
    flags: [...options.flags, '--port', new URL(first.origin).port],
  });
  running.push(second);

  await eve.goto(`${second.origin}/sessions/${sessionId}/replay`);
  await expect(eve.getByTestId('notice')).toHaveAttribute('data-problem', 'expired');
  await expect(eve.getByRole('heading')).toHaveText('Your share link expired');
  await rex.goto(`${second.origin}/sessions/${sessionId}/replay`);
  await expect(rex.getByTestId('notice')).toHaveAttribute('data-problem', 'revoked');
  await expect(rex.getByRole('heading')).toHaveText('Your access to this shell was revoked');
  // The expired link itself, opened again, says so too.
  await eve.goto(`${second.origin}/login?token=${encodeURIComponent(expiring.token)}`);
  await expect(eve.locator('body')).toContainText('This share link expired');
});
