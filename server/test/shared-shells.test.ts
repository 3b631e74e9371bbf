/**
 * People's own shells and share links against a real server: opening, owning, closing and
 * handing a shell to an agent; scoped links that reach one shell only; names, asking for and
 * granting the controls; revocation that disconnects at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo, ShareCreated, ShareInfo, WhoAmI } from '../../shared/src/api.ts';
import { LIVE_CLOSE } from '../../shared/src/live.ts';
import { MAX_PERSONAL_SHELLS } from '../src/session/shell-registry.ts';
import { errorOf, startServer, type TestServer } from './support/http-server.ts';
import { LiveClient } from './support/live-client.ts';

let server: TestServer;
let ownerToken: string;
let otherOperator: string;

beforeAll(async () => {
  server = await startServer();
  ownerToken = await server.mint({ role: 'operator', name: 'Olive' });
  otherOperator = await server.mint({ role: 'operator', name: 'Oscar' });
});

afterAll(async () => {
  await server.close();
});

async function json<T>(response: Response, status = 200): Promise<T> {
  if (response.status !== status) {
    throw new Error(`expected ${status}, got ${response.status}: ${await response.text()}`);
  }
  return (await response.json()) as T;
}

async function openShell(token = ownerToken): Promise<SessionInfo> {
  return json<SessionInfo>(await server.post('/api/sessions', { dialect: 'bash' }, token), 201);
}

async function share(
  id: string,
  role: 'viewer' | 'operator',
  token = ownerToken,
): Promise<ShareCreated> {
  return json<ShareCreated>(await server.post(`/api/sessions/${id}/shares`, { role }, token), 201);
}

function liveUrl(id: string): string {
  return `${server.origin.replace('http', 'ws')}/api/sessions/${id}/live`;
}

/** Joins and waits for the join snapshot. */
async function joinLive(id: string, token: string): Promise<LiveClient> {
  const client = await LiveClient.connect(liveUrl(id), { token });
  await client.next('snapshot');
  return client;
}

async function nameMe(token: string, name: string): Promise<WhoAmI> {
  return json<WhoAmI>(
    await server.request('/api/me/name', {
      method: 'PUT',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    }),
  );
}

describe("a person's own shell", () => {
  it('is opened by an operator, owned by their name, and reached by no agent', async () => {
    const shell = await openShell();
    expect(shell).toMatchObject({ agent: null, owner: 'Olive', dialect: 'bash', state: 'idle' });
    const listed = await json<SessionInfo[]>(
      await server.request('/api/sessions', { token: server.adminToken }),
    );
    expect(listed.find((s) => s.id === shell.id)?.owner).toBe('Olive');
    // An agent's call starts the agent's own shell; the person's shell is untouched.
    const call = await json<{ output: string }>(
      await server.post('/api/agents/Olive/bash', { command: 'echo $$' }),
    );
    expect(call.output).not.toBe(`${shell.pid}\n`);
    const after = await json<SessionInfo>(
      await server.request(`/api/sessions/${shell.id}`, { token: server.adminToken }),
    );
    expect(after.agent).toBeNull();
  });

  it('gives its owner the controls on joining, and echoes what they type', async () => {
    const shell = await openShell();
    const owner = await joinLive(shell.id, ownerToken);
    const control = await owner.next('control', (m) => m.controller !== null);
    expect(control.controller?.name).toBe('Olive');
    owner.send({ type: 'input', data: 'echo typed-$((6*7))\r' });
    await owner.until(() => owner.outputText().includes('typed-42'), 'the typed command output');
    expect(owner.outputText()).toContain('echo typed-$((6*7))');
    // The admin's connection to it watches; the controls stay with the owner.
    const other = await joinLive(shell.id, server.adminToken);
    expect((await other.next('control')).controller?.name).toBe('Olive');
    await Promise.all([owner.close(), other.close()]);
  });

  it('refuses viewers and agents the new-shell route, and unknown dialects clearly', async () => {
    const viewer = await server.mint({ role: 'viewer', name: 'Vi' });
    const agent = await server.mint({ role: 'agent', agent: 'a1' });
    for (const token of [viewer, agent]) {
      const response = await server.post('/api/sessions', { dialect: 'bash' }, token);
      expect(response.status).toBe(403);
    }
    const bad = await server.post('/api/sessions', { dialect: 'zsh' }, ownerToken);
    expect(bad.status).toBe(400);
  });

  it('is refused past the number one person may have open, with a clear message', async () => {
    const busy = await server.mint({ role: 'operator', name: 'Busy' });
    const opened = await Promise.all(
      Array.from({ length: MAX_PERSONAL_SHELLS }, () => openShell(busy)),
    );
    const refused = await server.post('/api/sessions', { dialect: 'bash' }, busy);
    expect(refused.status).toBe(429);
    expect(await errorOf(refused)).toEqual({
      code: 'TOO_MANY_SHELLS',
      message: `you have ${MAX_PERSONAL_SHELLS} shells of your own open, the most one may; close one first`,
    });
    for (const shell of opened) {
      await server.request(`/api/sessions/${shell.id}`, { method: 'DELETE', token: busy });
    }
    expect((await openShell(busy)).owner).toBe('Busy');
  });

  it('is closed by its owner (its process tree ends), and not by another operator', async () => {
    const shell = await openShell();
    const refused = await server.request(`/api/sessions/${shell.id}`, {
      method: 'DELETE',
      token: otherOperator,
    });
    // Private to its owner: to another operator it does not exist.
    expect(refused.status).toBe(404);
    expect((await errorOf(refused)).message).toBe(`no session ${JSON.stringify(shell.id)}`);
    const closed = await server.request(`/api/sessions/${shell.id}`, {
      method: 'DELETE',
      token: ownerToken,
    });
    expect(closed.status).toBe(204);
    const after = await json<SessionInfo>(
      await server.request(`/api/sessions/${shell.id}`, { token: server.adminToken }),
    );
    expect(after.state).toBe('exited');
    expect(() => process.kill(shell.pid as number, 0)).toThrow();
  });
});

describe('share links', () => {
  it('reach their one shell as a named viewer who cannot type', async () => {
    const shell = await openShell();
    const owner = await joinLive(shell.id, ownerToken);
    await owner.next('control', (m) => m.controller !== null);
    const link = await share(shell.id, 'viewer');
    expect(link.share).toMatchObject({ role: 'viewer', name: null, createdBy: 'Olive' });
    expect(link.url).toBe(`${server.origin}/login?token=${link.token}`);

    // The link serves the login page (it lands on the shell the token's scope names).
    const login = await fetch(link.url, { redirect: 'manual' });
    expect([200, 503]).toContain(login.status); // 503: the web app is not built

    const me = await json<WhoAmI>(await server.request('/api/me', { token: link.token }));
    expect(me).toEqual({
      id: link.share.id,
      name: 'guest',
      role: 'viewer',
      named: false,
      scope: shell.id,
      canControl: false,
    });
    expect(await nameMe(link.token, '  Vera  ')).toMatchObject({ name: 'Vera', named: true });

    const guest = await joinLive(shell.id, link.token);
    const joined = await owner.next('viewer_joined');
    expect(joined.viewer).toMatchObject({ name: 'Vera', link: true });
    const presence = await guest.next('presence');
    expect(presence.viewers.map((v) => v.name).sort()).toEqual(['Olive', 'Vera']);
    guest.send({ type: 'input', data: 'echo nope\r' });
    const refusal = await guest.next('error');
    expect(refusal.message).toBe('role "viewer" may only watch this shell');
    owner.send({ type: 'input', data: 'echo shared-$((1+1))\r' });
    await guest.until(() => guest.outputText().includes('shared-2'), 'the owner output');

    const listed = await json<ShareInfo[]>(
      await server.request(`/api/sessions/${shell.id}/shares`, { token: ownerToken }),
    );
    expect(listed).toEqual([{ ...link.share, name: 'Vera' }]);
    await Promise.all([owner.close(), guest.close()]);
  });

  it('are refused on every other shell, route and WebSocket', async () => {
    const shell = await openShell();
    const other = await openShell(otherOperator);
    const { token } = await share(shell.id, 'operator');
    const own = [`/api/sessions/${shell.id}`, `/api/sessions/${shell.id}/calls`, '/api/me'];
    for (const path of own) {
      expect((await server.request(path, { token })).status, path).toBe(200);
    }
    const elsewhere: [string, string][] = [
      ['GET', '/api/sessions'],
      ['GET', `/api/sessions/${other.id}`],
      ['GET', `/api/sessions/${other.id}/calls`],
      ['GET', `/api/sessions/${shell.id}/shares`],
      ['POST', '/api/sessions'],
      ['DELETE', `/api/sessions/${shell.id}`],
      ['POST', '/api/agents/a1/bash'],
      ['POST', '/api/tokens'],
      ['GET', '/api/tools'],
      ['GET', '/metrics'],
      ['GET', '/api/nothing-here'],
    ];
    for (const [method, path] of elsewhere) {
      const response = await server.request(path, {
        method,
        token,
        ...(method === 'GET' || method === 'DELETE'
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: '{"dialect":"bash"}' }),
      });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect((await errorOf(response)).message).toBe(
        `this share link reaches only the shell it was made for (${shell.id})`,
      );
    }
    for (const path of [`/api/sessions/${other.id}/live`, '/api/live']) {
      await expect(
        LiveClient.connect(`${server.origin.replace('http', 'ws')}${path}`, { token }),
      ).rejects.toThrow('upgrade refused: 403');
    }
    const ownLive = await joinLive(shell.id, token);
    await ownLive.close();
  });

  it('let an operator ask for the controls, and the holder grant or decline', async () => {
    const shell = await openShell();
    const owner = await joinLive(shell.id, ownerToken);
    await owner.next('control', (m) => m.controller !== null);
    const { token } = await share(shell.id, 'operator');
    await nameMe(token, 'Gus');
    const guest = await joinLive(shell.id, token);
    const hello = await guest.next('hello');
    expect(hello.canControl).toBe(true);

    guest.send({ type: 'take_control' });
    expect((await guest.next('error')).message).toBe('Olive holds the controls');

    guest.send({ type: 'request_control' });
    const asked = await owner.next('control_requested');
    expect(asked.from).toEqual(hello.you);
    owner.send({ type: 'decline_control', to: hello.you.id });
    expect(await guest.next('control_request_closed')).toMatchObject({ outcome: 'declined' });

    const seen = owner.messages.length;
    guest.send({ type: 'request_control' });
    await owner.next('control_requested', () => true, seen);
    // Only the holder may answer.
    const before = guest.messages.length;
    guest.send({ type: 'grant_control', to: hello.you.id });
    expect((await guest.next('error', () => true, before)).message).toBe(
      'only the viewer at the controls can answer',
    );
    owner.send({ type: 'grant_control', to: hello.you.id });
    const passed = await owner.next('control', (m) => m.controller?.name === 'Gus');
    expect(passed.controller?.id).toBe(hello.you.id);
    await guest.next('control_request_closed', (m) => m.outcome === 'granted');

    guest.send({ type: 'input', data: 'echo from-gus-$((2*21))\r' });
    await owner.until(() => owner.outputText().includes('from-gus-42'), "Gus's output");
    owner.send({ type: 'input', data: 'x' });
    expect((await owner.next('error', (m) => m.code === 'CONTROLLED')).message).toBe(
      'take the controls first',
    );
    await Promise.all([owner.close(), guest.close()]);
  });

  it('withdraw a request when the asker leaves', async () => {
    const shell = await openShell();
    const owner = await joinLive(shell.id, ownerToken);
    await owner.next('control', (m) => m.controller !== null);
    const asker = await joinLive(shell.id, (await share(shell.id, 'operator')).token);
    const you = (await asker.next('hello')).you;
    asker.send({ type: 'request_control' });
    await owner.next('control_requested');
    await asker.close();
    expect(await owner.next('control_request_closed')).toEqual({
      type: 'control_request_closed',
      from: you.id,
      outcome: 'withdrawn',
    });
    await owner.close();
  });

  it('disconnect their holder at once when revoked, and stop working', async () => {
    const shell = await openShell();
    const owner = await joinLive(shell.id, ownerToken);
    await owner.next('control', (m) => m.controller !== null);
    const link = await share(shell.id, 'viewer');
    const guest = await joinLive(shell.id, link.token);
    owner.send({
      type: 'input',
      data: 'for i in $(seq 1 200); do echo tick-$i; sleep 0.05; done\r',
    });
    await guest.until(() => guest.outputText().includes('tick-3'), 'streaming output');
    const revoked = await server.request(`/api/sessions/${shell.id}/shares/${link.share.id}`, {
      method: 'DELETE',
      token: ownerToken,
    });
    expect(revoked.status).toBe(204);
    await guest.until(() => guest.closed, 'the revoked socket to close', 2000);
    expect(guest.closed).toEqual({
      code: LIVE_CLOSE.revoked,
      reason: 'the share link was revoked by Olive',
    });
    const after = await server.request('/api/me', { token: link.token });
    expect(after.status).toBe(401);
    expect(await errorOf(after)).toEqual({
      code: 'LINK_ENDED',
      message: 'this share link was revoked; ask the person who shared the shell for a new one',
    });
    const login = await fetch(link.url, { redirect: 'manual' });
    expect(login.status).toBe(401);
    expect(await login.text()).toContain(
      'This share link was revoked; ask the person who shared the shell for a new one.',
    );
    await expect(LiveClient.connect(liveUrl(shell.id), { token: link.token })).rejects.toThrow(
      'upgrade refused: 401',
    );
    const again = await server.request(`/api/sessions/${shell.id}/shares/${link.share.id}`, {
      method: 'DELETE',
      token: ownerToken,
    });
    expect(again.status).toBe(404);
    await owner.close();
  });

  it('disconnect their holder when they expire, and then say so', async () => {
    const shell = await openShell();
    // The API's shortest life is a minute; the store takes any, so this one lasts a second.
    const { token } = await server.tokens.mintShare({
      sessionId: shell.id,
      role: 'viewer',
      expiresInSeconds: 1,
      by: 'test',
    });
    const guest = await joinLive(shell.id, token);
    await guest.until(() => guest.closed, 'the expired link to be disconnected', 5000);
    expect(guest.closed).toEqual({ code: LIVE_CLOSE.revoked, reason: 'the share link expired' });
    expect(await errorOf(await server.request('/api/me', { token }))).toEqual({
      code: 'LINK_ENDED',
      message: 'this share link expired; ask the person who shared the shell for a new one',
    });
  });

  it('are made only by the owner or the admin', async () => {
    const shell = await openShell();
    const refused = await server.post(
      `/api/sessions/${shell.id}/shares`,
      { role: 'viewer' },
      otherOperator,
    );
    expect(refused.status).toBe(404); // private: another operator does not see it at all
    const byAdmin = await server.post(`/api/sessions/${shell.id}/shares`, {
      role: 'viewer',
      expiresInSeconds: 3600,
    });
    const created = await json<ShareCreated>(byAdmin, 201);
    const expires = Date.parse(created.share.expiresAt ?? '');
    expect(Math.abs(expires - (Date.now() + 3600_000))).toBeLessThan(60_000);
    const tooLong = await server.post(`/api/sessions/${shell.id}/shares`, {
      role: 'viewer',
      expiresInSeconds: 31 * 24 * 3600,
    });
    expect(tooLong.status).toBe(400);
  });
});

describe('handing a shell to an agent', () => {
  it('makes it the agent’s shell: its next call runs in the same cwd and variables', async () => {
    const shell = await openShell();
    const owner = await joinLive(shell.id, ownerToken);
    await owner.next('control', (m) => m.controller !== null);
    // A directory of the owner's own workspace: a sandboxed shell sees no other.
    owner.send({ type: 'input', data: 'mkdir -p handed && cd handed && HANDED=over\r' });
    owner.send({ type: 'input', data: 'echo ready-$HANDED\r' });
    await owner.until(() => owner.outputText().includes('ready-over'), 'the typed commands');

    const handed = await json<SessionInfo>(
      await server.post(`/api/sessions/${shell.id}/hand-off`, { agent: 'heir' }, ownerToken),
    );
    expect(handed).toMatchObject({ agent: 'heir', owner: 'Olive', controller: null });
    // The agent's shell now: its opener may no longer close it.
    const close = await server.request(`/api/sessions/${shell.id}`, {
      method: 'DELETE',
      token: ownerToken,
    });
    expect(close.status).toBe(403);
    expect((await errorOf(close)).message).toBe(
      `this shell is agent "heir"'s now; only the admin may close it`,
    );
    await owner.next('control', (m) => m.controller === null);

    const call = await json<{ output: string }>(
      await server.post('/api/agents/heir/bash', { command: 'basename "$PWD"; echo $HANDED' }),
    );
    expect(call.output).toBe(
      '[a human used this shell: mkdir -p handed && cd handed && HANDED=over; echo ready-$HANDED]\nhanded\nover',
    );
    // The same process: the agent's slot holds this shell, with the pid it had.
    const heir = (
      await json<SessionInfo[]>(await server.request('/api/sessions', { token: server.adminToken }))
    ).filter((s) => s.agent === 'heir');
    expect(heir.map((s) => [s.id, s.pid])).toEqual([[shell.id, shell.pid]]);
    await owner.close();
  });

  it('is refused while the agent has a live shell of that dialect', async () => {
    await json(await server.post('/api/agents/busy/bash', { command: 'true' }));
    const shell = await openShell();
    const refused = await server.post(
      `/api/sessions/${shell.id}/hand-off`,
      { agent: 'busy' },
      ownerToken,
    );
    expect(refused.status).toBe(409);
    const error = await errorOf(refused);
    expect(error.code).toBe('AGENT_HAS_SHELL');
    expect(error.message).toMatch(
      /^agent "busy" already has a live bash shell \([0-9a-f-]{36}\); end that shell or hand this one to another agent$/,
    );
    const again = await server.post(`/api/sessions/${shell.id}/hand-off`, { agent: 'fresh' });
    expect(again.status).toBe(200);
    const twice = await server.post(`/api/sessions/${shell.id}/hand-off`, { agent: 'other' });
    expect(twice.status).toBe(409);
    expect((await errorOf(twice)).message).toBe('this shell already belongs to agent "fresh"');
  });
});
