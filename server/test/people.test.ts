/**
 * What people can rely on (issue 13), through the public API: minted tokens are listed,
 * renamed and revoked (a revoked token's sockets close at once); names are honest (set by
 * the admin, or a link holder's own, never with control, bidi or invisible characters) and
 * kept with the token id; people's own shells are private.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlEvent, SessionInfo, ShareCreated, TokenInfo } from '../../shared/src/api.ts';
import { LIVE_CLOSE } from '../../shared/src/live.ts';
import { errorOf, startServer, type TestServer } from './support/http-server.ts';
import { LiveClient } from './support/live-client.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function json<T>(response: Response, status = 200): Promise<T> {
  if (response.status !== status) {
    throw new Error(`expected ${status}, got ${response.status}: ${await response.text()}`);
  }
  return (await response.json()) as T;
}

async function idOf(token: string): Promise<string> {
  return (await json<{ id: string }>(await server.request('/api/me', { token }))).id;
}

function send(path: string, method: string, body: unknown, token = server.adminToken) {
  return server.request(path, {
    method,
    token,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A dashboard stream: its first message (every shell the token may see) and its close code. */
async function openDashboard(token: string) {
  const WebSocket = (await import('ws')).default;
  const socket = new WebSocket(wsUrl('/api/live'), {
    headers: { authorization: `Bearer ${token}` },
  });
  const first = new Promise<string>((resolve, reject) => {
    socket.once('message', (data) => resolve(String(data)));
    socket.once('error', reject);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  return { first, closed, close: () => socket.close() };
}

async function firstDashboardMessage(token: string): Promise<string> {
  const dashboard = await openDashboard(token);
  const text = await dashboard.first;
  dashboard.close();
  return text;
}

const wsUrl = (path: string): string => `${server.origin.replace('http', 'ws')}${path}`;

describe('token management', () => {
  it('lists every minted token and share link with its last use, and never a secret', async () => {
    const token = await server.mint({ role: 'viewer', name: 'Lister' });
    const id = await idOf(token);
    const list = await json<TokenInfo[]>(
      await server.request('/api/tokens', { token: server.adminToken }),
    );
    const entry = list.find((t) => t.id === id);
    expect(entry).toMatchObject({
      name: 'Lister',
      role: 'viewer',
      agent: null,
      scope: null,
      link: false,
      createdBy: null,
      revokedAt: null,
    });
    expect(Date.parse(entry?.lastUsedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const text = JSON.stringify(list);
    expect(text).not.toContain(token);
    expect(text).not.toContain(server.adminToken);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
  });

  it('is the admin’s alone', async () => {
    const operator = await server.mint({ role: 'operator', name: 'NotAdmin' });
    const response = await server.request('/api/tokens', { token: operator });
    expect(response.status).toBe(403);
    expect((await errorOf(response)).message).toBe('only the admin may manage tokens');
  });

  it('renames a minted token; the holder shows by the new name', async () => {
    const token = await server.mint({ role: 'operator', name: 'Old' });
    const id = await idOf(token);
    const renamed = await json<TokenInfo>(
      await send(`/api/tokens/${id}`, 'PATCH', { name: ' New ' }),
    );
    expect(renamed.name).toBe('New');
    expect((await json<{ name: string }>(await server.request('/api/me', { token }))).name).toBe(
      'New',
    );
    const unknown = await send('/api/tokens/nope', 'PATCH', { name: 'X' });
    expect(unknown.status).toBe(404);
  });

  it('revokes a token: its live and dashboard sockets close at once, its browsers are signed out', async () => {
    const token = await server.mint({ role: 'operator', name: 'Leaver' });
    const id = await idOf(token);
    await server.post('/api/agents/revoke-me/bash', { command: 'true' });
    const shell = (
      await json<SessionInfo[]>(await server.request('/api/sessions', { token }))
    ).find((s) => s.agent === 'revoke-me');
    const live = await LiveClient.connect(wsUrl(`/api/sessions/${shell?.id}/live`), { token });
    await live.next('snapshot');
    const dashboard = await openDashboard(token);
    await dashboard.first;
    const login = await json<{ credential: string }>(
      await server.request('/api/login', { method: 'POST', token }),
      201,
    );
    expect(
      (await server.request(`/api/tokens/${id}`, { method: 'DELETE', token: server.adminToken }))
        .status,
    ).toBe(204);
    await live.until(() => live.closed, 'the live socket to close');
    expect(live.closed?.code).toBe(LIVE_CLOSE.revoked);
    expect(await dashboard.closed).toBe(LIVE_CLOSE.revoked);
    const refused = await server.request('/api/me', { token });
    expect(refused.status).toBe(401);
    expect((await errorOf(refused)).message).toBe(
      'this token was revoked; ask the admin for a new one',
    );
    const signedOut = await server.request('/api/me', { token: login.credential });
    expect(signedOut.status).toBe(401);
    expect((await errorOf(signedOut)).code).toBe('LINK_ENDED');
  });

  it('refuses to manage the admin token', async () => {
    const response = await server.request('/api/tokens/admin', {
      method: 'DELETE',
      token: server.adminToken,
    });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).message).toBe(
      'the admin token is configured, not minted: change it where it is configured',
    );
  });
});

describe('honest names', () => {
  it("refuses a minted token's holder renaming themselves (Bob cannot become Ann)", async () => {
    const bob = await server.mint({ role: 'operator', name: 'Bob' });
    const response = await send('/api/me/name', 'PUT', { name: 'Ann' }, bob);
    expect(response.status).toBe(403);
    expect((await errorOf(response)).message).toBe(
      "a minted token's name is set by the admin (PATCH /api/tokens/:id); only a share link's holder names themselves",
    );
    expect(
      (await json<{ name: string }>(await server.request('/api/me', { token: bob }))).name,
    ).toBe('Bob');
    const admin = await send('/api/me/name', 'PUT', { name: 'Ann' });
    expect(admin.status).toBe(403);
  });

  it.each([
    ['a right-to-left override', 'Ann\u202eevil'],
    ['a zero-width space', 'An\u200bn'],
    ['an escape', 'Ann\x1b[31m'],
    ['a bidi isolate', '\u2066Ann'],
    ['a Hangul filler', '\u3164'],
    ['the braille blank', 'Ann\u2800'],
    ['a variation selector (default-ignorable)', 'Ann\ufe0f'],
  ])('refuses %s in a name, everywhere a name is given', async (_what, name) => {
    const minted = await send('/api/tokens', 'POST', { role: 'viewer', name });
    expect(minted.status).toBe(400);
    expect((await errorOf(minted)).message).toMatch(
      /^a name (may not hold control, bidi or invisible characters \(U\+[0-9A-F]{4} found\)|must have something other than white space)$/,
    );
    const opened = await json<SessionInfo>(
      await server.post('/api/sessions', { dialect: 'bash' }),
      201,
    );
    const link = await json<ShareCreated>(
      await server.post(`/api/sessions/${opened.id}/shares`, { role: 'viewer' }),
      201,
    );
    expect((await send('/api/me/name', 'PUT', { name }, link.token)).status).toBe(400);
    await server.request(`/api/sessions/${opened.id}`, {
      method: 'DELETE',
      token: server.adminToken,
    });
  });

  it('lets a link holder name themselves, and shows them as a link holder even under a taken name', async () => {
    await server.mint({ role: 'operator', name: 'Carol' });
    const opened = await json<SessionInfo>(
      await server.post('/api/sessions', { dialect: 'bash' }),
      201,
    );
    const link = await json<ShareCreated>(
      await server.post(`/api/sessions/${opened.id}/shares`, { role: 'operator' }),
      201,
    );
    expect((await send('/api/me/name', 'PUT', { name: 'Carol' }, link.token)).status).toBe(200);
    expect((await send('/api/me/name', 'PUT', { name: 'Zoë' }, link.token)).status).toBe(200);
    const guest = await LiveClient.connect(wsUrl(`/api/sessions/${opened.id}/live`), {
      token: link.token,
    });
    const hello = await guest.next('hello');
    expect(hello.you).toMatchObject({ name: 'Zoë', link: true, tokenId: link.share.id });
    await guest.close();
    await server.request(`/api/sessions/${opened.id}`, {
      method: 'DELETE',
      token: server.adminToken,
    });
  });

  it("refuses a name that looks like another person's, everywhere a name is given", async () => {
    await server.mint({ role: 'operator', name: 'Dorothy' });
    const expected = 'a name may not look like another person\'s name ("Dorothy")';
    // Cyrillic о and у in place of the Latin letters.
    const minted = await send('/api/tokens', 'POST', { role: 'viewer', name: 'Dоrothу' });
    expect(minted.status).toBe(400);
    expect((await errorOf(minted)).message).toBe(expected);
    const other = await idOf(await server.mint({ role: 'viewer', name: 'Ruth' }));
    const renamed = await send(`/api/tokens/${other}`, 'PATCH', { name: 'D0ROTHY' });
    expect(renamed.status).toBe(400);
    expect((await errorOf(renamed)).message).toBe(expected);
    const opened = await json<SessionInfo>(
      await server.post('/api/sessions', { dialect: 'bash' }),
      201,
    );
    const link = await json<ShareCreated>(
      await server.post(`/api/sessions/${opened.id}/shares`, { role: 'viewer' }),
      201,
    );
    const named = await send('/api/me/name', 'PUT', { name: 'Ｄorothy' }, link.token);
    expect(named.status).toBe(400);
    expect((await errorOf(named)).message).toBe(expected);
    expect((await send('/api/me/name', 'PUT', { name: 'Dot' }, link.token)).status).toBe(200);
    await server.request(`/api/sessions/${opened.id}`, {
      method: 'DELETE',
      token: server.adminToken,
    });
  });

  it('keeps the token id with the name in control events and calls', async () => {
    const token = await server.mint({ role: 'operator', name: 'Keeper' });
    const id = await idOf(token);
    await server.post('/api/agents/names-kept/bash', { command: 'true' });
    const shell = (
      await json<SessionInfo[]>(await server.request('/api/sessions', { token }))
    ).find((s) => s.agent === 'names-kept');
    const live = await LiveClient.connect(wsUrl(`/api/sessions/${shell?.id}/live`), { token });
    await live.next('snapshot');
    const running = server.post('/api/agents/names-kept/bash', { command: 'sleep 1; echo done' });
    await live.next('call_started');
    live.send({ type: 'take_control' });
    await live.next('control', (m) => m.controller?.name === 'Keeper');
    live.send({ type: 'release_control' });
    await live.next('control', (m) => m.controller === null && live.messages.length > 3);
    expect((await running).status).toBe(200);
    await live.close();
    const events = await json<ControlEvent[]>(
      await server.request(`/api/sessions/${shell?.id}/events`, { token }),
    );
    expect(events.map((e) => [e.kind, e.name, e.tokenId])).toEqual([
      ['take', 'Keeper', id],
      ['release', 'Keeper', id],
    ]);
    const calls = await json<
      { command: string; controller: string | null; controllerTokenId: string | null }[]
    >(await server.request(`/api/sessions/${shell?.id}/calls`, { token }));
    expect(calls.at(-1)).toMatchObject({ controller: 'Keeper', controllerTokenId: id });
  });
});

describe("people's own shells", () => {
  it('are reachable by their owner, the admin and their links only', async () => {
    const owner = await server.mint({ role: 'operator', name: 'Private' });
    const other = await server.mint({ role: 'operator', name: 'Nosy' });
    const viewer = await server.mint({ role: 'viewer', name: 'Peek' });
    const shell = await json<SessionInfo>(
      await server.post('/api/sessions', { dialect: 'bash' }, owner),
      201,
    );
    const link = await json<ShareCreated>(
      await server.post(`/api/sessions/${shell.id}/shares`, { role: 'viewer' }, owner),
      201,
    );
    const listed = async (token: string) =>
      (await json<SessionInfo[]>(await server.request('/api/sessions?state=all', { token }))).some(
        (s) => s.id === shell.id,
      );
    expect(await listed(owner)).toBe(true);
    expect(await listed(server.adminToken)).toBe(true);
    expect(await listed(other)).toBe(false);
    expect(await listed(viewer)).toBe(false);
    for (const token of [other, viewer]) {
      for (const path of ['', '/calls', '/events', '/recording', '/shares']) {
        const response = await server.request(`/api/sessions/${shell.id}${path}`, { token });
        expect(response.status).toBe(404);
        expect((await errorOf(response)).message).toBe(`no session ${JSON.stringify(shell.id)}`);
      }
      await expect(
        LiveClient.connect(wsUrl(`/api/sessions/${shell.id}/live`), { token }),
      ).rejects.toThrow('upgrade refused: 404');
      const first = await firstDashboardMessage(token);
      expect(first).toContain('"type":"sessions"');
      expect(first).not.toContain(shell.id);
    }
    for (const token of [owner, server.adminToken, link.token]) {
      expect((await server.request(`/api/sessions/${shell.id}`, { token })).status).toBe(200);
      const live = await LiveClient.connect(wsUrl(`/api/sessions/${shell.id}/live`), { token });
      await live.next('snapshot');
      await live.close();
    }
    // Handed to an agent, it is the agent's shell: every supervisor sees it.
    await server.post(`/api/sessions/${shell.id}/hand-off`, { agent: 'adopted-one' }, owner);
    expect(await listed(other)).toBe(true);
  });
});
