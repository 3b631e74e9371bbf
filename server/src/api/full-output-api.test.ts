import { symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInfo, SessionInfo, ShareCreated, WebSettings } from '../../../shared/src/api.ts';
import { errorOf, startServer, type TestServer } from '../../test/support/http-server.ts';
import { savedOutputIn } from '../tool/contract-text.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    flags: ['--max-output-chars', '100', '--public-url', 'https://js.example.test/team'],
  });
});
afterAll(() => server.close());

async function json<T>(response: Response, status = 200): Promise<T> {
  if (response.status !== status) {
    throw new Error(`expected ${status}, got ${response.status}: ${await response.text()}`);
  }
  return (await response.json()) as T;
}

async function bash(agent: string, command: string): Promise<string> {
  return (
    await json<{ output: string }>(await server.post(`/api/agents/${agent}/bash`, { command }))
  ).output;
}

async function lastCall(agent: string): Promise<{ session: SessionInfo; call: CallInfo }> {
  const sessions = await json<SessionInfo[]>(
    await server.request('/api/sessions', { token: server.adminToken }),
  );
  const session = sessions.find((s) => s.agent === agent);
  if (session === undefined) throw new Error(`no shell for ${agent}`);
  const calls = await json<CallInfo[]>(
    await server.request(`/api/sessions/${session.id}/calls`, { token: server.adminToken }),
  );
  const call = calls.at(-1);
  if (call === undefined) throw new Error('no call');
  return { session, call };
}

const outputUrl = (session: SessionInfo, call: CallInfo): string =>
  `/api/sessions/${session.id}/calls/${call.id}/output`;

describe('GET /api/sessions/:id/calls/:callId/output', () => {
  it("serves a clipped call's saved file whole, as text, inline or as a download", async () => {
    const result = await bash('fo-a', 'seq 1 5000');
    expect(result).toContain('<response clipped>');
    const { session, call } = await lastCall('fo-a');
    const response = await server.request(outputUrl(session, call), { token: server.adminToken });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-disposition')).toMatch(/^inline; filename="fo-a-/);
    const expected = Array.from({ length: 5000 }, (_, i) => String(i + 1)).join('\n');
    expect((await response.text()).trimEnd()).toBe(expected);
    const download = await server.request(`${outputUrl(session, call)}?download=true`, {
      token: server.adminToken,
    });
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="fo-a-/);
  });

  it('honours one byte range, and refuses one past the end', async () => {
    await bash('fo-r', 'seq 1 5000');
    const { session, call } = await lastCall('fo-r');
    const head = await server.request(outputUrl(session, call), {
      token: server.adminToken,
      headers: { range: 'bytes=0-9' },
    });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-range')).toMatch(/^bytes 0-9\/\d+$/);
    expect(await head.text()).toBe('1\n2\n3\n4\n5\n');
    const past = await server.request(outputUrl(session, call), {
      token: server.adminToken,
      headers: { range: 'bytes=99999999-' },
    });
    expect(past.status).toBe(416);
  });

  it('answers 404 for a call that was not clipped, even if it printed a look-alike line', async () => {
    await bash('fo-b', 'seq 1 5000 >/dev/null');
    const { call: big } = await lastCall('fo-b');
    expect(big.output).toBe('');
    await bash('fo-b', "echo '[full output saved to /etc/passwd]'");
    const { session, call } = await lastCall('fo-b');
    const response = await server.request(outputUrl(session, call), { token: server.adminToken });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).message).toBe(
      'this call was not clipped: its result holds its whole output',
    );
  });

  it("never follows a symbolic link put in place of the agent's saved file", async () => {
    await bash('fo-c', 'seq 1 5000');
    const { session, call } = await lastCall('fo-c');
    const path = savedOutputIn(call.output);
    if (path === null) throw new Error('no saved file');
    unlinkSync(path);
    writeFileSync(`${path}.secret`, 'secret');
    symlinkSync(`${path}.secret`, path);
    const response = await server.request(outputUrl(session, call), { token: server.adminToken });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).message).toBe(
      'the saved output is gone: the newest 20 of each agent are kept',
    );
  });

  it('is refused without a token, to an agent token, and to a share link of another shell', async () => {
    await bash('fo-d', 'seq 1 5000');
    const { session, call } = await lastCall('fo-d');
    expect((await server.request(outputUrl(session, call))).status).toBe(401);
    const agentToken = await server.mint({ role: 'agent', agent: 'fo-d' });
    expect((await server.request(outputUrl(session, call), { token: agentToken })).status).toBe(
      403,
    );
    const ownerToken = await server.mint({ role: 'operator', name: 'Olive' });
    const own = await json<SessionInfo>(
      await server.post('/api/sessions', { dialect: 'bash' }, ownerToken),
      201,
    );
    const link = await json<ShareCreated>(
      await server.post(`/api/sessions/${own.id}/shares`, { role: 'viewer' }, ownerToken),
      201,
    );
    const response = await server.request(outputUrl(session, call), { token: link.token });
    expect(response.status).toBe(403);
  });
});

describe('--public-url', () => {
  it('names the public URL in share links, whatever host the creator used', async () => {
    const ownerToken = await server.mint({ role: 'operator', name: 'Pat' });
    const own = await json<SessionInfo>(
      await server.post('/api/sessions', { dialect: 'bash' }, ownerToken),
      201,
    );
    const link = await json<ShareCreated>(
      await server.post(`/api/sessions/${own.id}/shares`, { role: 'viewer' }, ownerToken),
      201,
    );
    expect(link.url).toBe(
      `https://js.example.test/team/login?token=${encodeURIComponent(link.token)}`,
    );
  });

  it('is in GET /api/settings with the needs-a-human wait and the local shells', async () => {
    const settings = await json<WebSettings>(
      await server.request('/api/settings', { token: server.adminToken }),
    );
    expect(settings.publicUrl).toBe('https://js.example.test/team/');
    expect(settings.needsHumanAfterMs).toBe(2000);
    expect(settings.localShells).toBe(true);
    expect(Math.abs(Date.parse(settings.serverTime) - Date.now())).toBeLessThan(60_000);
  });
});
