/**
 * Durable history against a real server, real bash and a real data dir: a restart keeps the
 * shells, their calls (exact result text, who held the controls), control events, recordings
 * and the auth audit. Every case runs on both engines: the data dir's SQLite file and
 * PostgreSQL (`--database`, a database of the test's own).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, CallInfo, ControlEvent, SessionInfo } from '../../shared/src/api.ts';
import { parseAsciicast } from '../../shared/src/asciicast.ts';
import { HISTORY_ENGINES } from './support/history-engines.ts';
import { errorOf, startServer, type TestServer } from './support/http-server.ts';
import { LiveClient } from './support/live-client.ts';

let root: string;
let dataDir: string;
const servers: TestServer[] = [];
/** The engine's options for startServer, the same across a test's restarts. */
let engineOptions: { database?: string } = {};

async function start(flags: string[] = []): Promise<TestServer> {
  const server = await startServer({ dataDir, flags, ...engineOptions });
  servers.push(server);
  return server;
}

async function call(server: TestServer, agent: string, command: string): Promise<string> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command });
  const body = await response.text();
  expect(response.status, body).toBe(200);
  return (JSON.parse(body) as { output: string }).output;
}

async function getJson<T>(server: TestServer, path: string, token = server.adminToken): Promise<T> {
  const response = await server.request(path, { token });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

function outputOf(recording: string): string {
  return parseAsciicast(recording)
    .events.filter(([, code]) => code === 'o')
    .map(([, , data]) => data)
    .join('');
}

function markersOf(recording: string): string[] {
  return parseAsciicast(recording)
    .events.filter(([, code]) => code === 'm')
    .map(([, , data]) => data);
}

describe.each(HISTORY_ENGINES)('history on $name', (engine) => {
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'jumpseat-history-'));
    dataDir = join(root, 'data');
    engineOptions = await engine.setUp();
  });

  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
    await engine.tearDown();
  });

  describe('after a restart', () => {
    it('lists the past shell as ended, with its calls and its recording', async () => {
      const first = await start();
      expect(await call(first, 'h1', 'echo before-restart')).toBe('before-restart');
      expect(await call(first, 'h1', 'ls /nonexistent-dir')).toBe(
        "ls: cannot access '/nonexistent-dir': No such file or directory\n[exit code: 2]",
      );
      const [live] = await getJson<SessionInfo[]>(first, '/api/sessions');
      expect(live?.state).toBe('idle');
      await first.close({ keepData: true });
      servers.length = 0;

      const second = await start();
      expect(await getJson<SessionInfo[]>(second, '/api/sessions')).toEqual([]);
      const all = await getJson<SessionInfo[]>(second, '/api/sessions?state=all');
      expect(all).toHaveLength(1);
      const past = all[0] as SessionInfo;
      expect(past).toMatchObject({
        id: live?.id,
        agent: 'h1',
        dialect: 'bash',
        state: 'ended',
        pid: null,
        lastExitCode: 2,
        startedAt: live?.startedAt,
        ending: { kind: 'closed', exitCode: null, signal: null },
      });
      expect(past.endedAt).not.toBeNull();
      expect(await getJson<SessionInfo[]>(second, '/api/sessions?state=ended')).toEqual(all);
      expect(await getJson<SessionInfo>(second, `/api/sessions/${past.id}`)).toEqual(past);

      const calls = await getJson<CallInfo[]>(second, `/api/sessions/${past.id}/calls`);
      expect(calls.map((c) => [c.command, c.output, c.exitCode, c.outcome, c.controller])).toEqual([
        ['echo before-restart', 'before-restart', 0, 'completed', null],
        [
          'ls /nonexistent-dir',
          "ls: cannot access '/nonexistent-dir': No such file or directory\n[exit code: 2]",
          2,
          'completed',
          null,
        ],
      ]);

      const response = await second.request(`/api/sessions/${past.id}/recording`, {
        token: second.adminToken,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-asciicast; charset=utf-8');
      const recording = await response.text();
      const { header } = parseAsciicast(recording);
      expect(header).toMatchObject({ version: 2, width: 120, height: 40, title: 'h1 · bash' });
      expect(header.timestamp).toBe(Math.floor(Date.parse(past.startedAt) / 1000));
      const output = outputOf(recording);
      expect(output).toContain('echo before-restart\r\nbefore-restart\r\n');
      expect(output).toContain("ls: cannot access '/nonexistent-dir'");
      expect(markersOf(recording)).toEqual([
        'echo before-restart',
        'end: echo before-restart',
        'ls /nonexistent-dir',
        'end: ls /nonexistent-dir',
      ]);
      // No private mark ever reaches a recording.
      expect(recording).not.toContain('7717');
      for (const route of ['calls', 'events', 'recording']) {
        const unknown = await second.request(`/api/sessions/no-such-shell/${route}`, {
          token: second.adminToken,
        });
        expect(unknown.status).toBe(404);
        expect((await errorOf(unknown)).message).toBe('no session "no-such-shell"');
      }
    });

    it('says how each shell ended: its own exit, a reset after a timeout', async () => {
      // The deadline counts a new shell's start, which can take seconds on a loaded machine
      // (at 1.5 s, `exit 3` itself once timed out under CI's load).
      const first = await start(['--timeout-ms', '8000']);
      expect(await call(first, 'quits', 'exit 3')).toContain('[shell exited: code 3]\n');
      await call(first, 'slow', 'sleep 60');
      await first.close({ keepData: true });
      servers.length = 0;
      const second = await start();
      const all = await getJson<SessionInfo[]>(second, '/api/sessions?state=all');
      const endings = Object.fromEntries(all.map((s) => [s.agent, s.ending]));
      expect(endings).toEqual({
        quits: { kind: 'exited', exitCode: 3, signal: null },
        slow: { kind: 'reset', exitCode: null, signal: null },
      });
    });
  });

  describe('control events and keystrokes', () => {
    async function takeTypeRelease(server: TestServer, agent: string): Promise<SessionInfo> {
      await call(server, agent, 'true');
      const [session] = (await getJson<SessionInfo[]>(server, '/api/sessions')).filter(
        (s) => s.agent === agent,
      );
      if (!session) throw new Error('no session');
      const operator = await server.mint({ role: 'operator', name: 'Olive' });
      const client = await LiveClient.connect(
        `${server.origin.replace('http', 'ws')}/api/sessions/${session.id}/live`,
        { token: operator },
      );
      await client.next('snapshot');
      client.send({ type: 'take_control' });
      await client.next('control', (m) => m.controller !== null);
      client.send({ type: 'input', data: 'echo typed-by-olive\r' });
      await client.until(() => client.outputText().includes('typed-by-olive\r\n'), 'the echo');
      const beforeRelease = client.messages.length;
      client.send({ type: 'release_control' });
      await client.next('control', (m) => m.controller === null, beforeRelease);
      await client.close();
      return session;
    }

    it('records who took and released the controls, and not their keystrokes by default', async () => {
      const server = await start();
      const session = await takeTypeRelease(server, 'ctl');
      expect(await call(server, 'ctl', 'echo back')).toBe(
        '[a human used this shell: echo typed-by-olive]\nback',
      );
      const events = await getJson<ControlEvent[]>(server, `/api/sessions/${session.id}/events`);
      expect(events.map((e) => [e.kind, e.name, e.keysRecorded])).toEqual([
        ['take', 'Olive', false],
        ['release', 'Olive', false],
      ]);
      const recording = await (
        await server.request(`/api/sessions/${session.id}/recording`, { token: server.adminToken })
      ).text();
      expect(parseAsciicast(recording).events.filter(([, code]) => code === 'i')).toEqual([]);
      expect(outputOf(recording)).toContain('typed-by-olive');
    });

    it("records a person's shell handed to an agent, and keeps it across a restart", async () => {
      const server = await start();
      const owner = await server.mint({ role: 'operator', name: 'Olive' });
      const opened = await server.post('/api/sessions', { dialect: 'bash' }, owner);
      expect(opened.status).toBe(201);
      const shell = (await opened.json()) as SessionInfo;
      const handed = await server.post(
        `/api/sessions/${shell.id}/hand-off`,
        { agent: 'taker' },
        owner,
      );
      expect(handed.status).toBe(200);
      expect(await call(server, 'taker', 'echo mine-now')).toBe('mine-now');
      const kinds = (events: ControlEvent[]) => events.map((e) => [e.kind, e.name]);
      expect(
        kinds(await getJson<ControlEvent[]>(server, `/api/sessions/${shell.id}/events`)),
      ).toEqual([['hand_off', 'taker']]);
      await server.close({ keepData: true });
      const again = await start();
      expect(
        kinds(await getJson<ControlEvent[]>(again, `/api/sessions/${shell.id}/events`)),
      ).toEqual([['hand_off', 'taker']]);
    });

    it('records keystrokes as input events with --record-keystrokes on', async () => {
      const server = await start(['--record-keystrokes', 'on']);
      const session = await takeTypeRelease(server, 'keys');
      const recording = await (
        await server.request(`/api/sessions/${session.id}/recording`, { token: server.adminToken })
      ).text();
      const typed = parseAsciicast(recording)
        .events.filter(([, code]) => code === 'i')
        .map(([, , data]) => data)
        .join('');
      expect(typed).toBe('echo typed-by-olive\r');
      const events = await getJson<ControlEvent[]>(server, `/api/sessions/${session.id}/events`);
      expect(events.map((e) => [e.kind, e.keysRecorded])).toEqual([
        ['take', true],
        ['release', true],
      ]);
    });

    it('names the person who held the controls during a call', async () => {
      const server = await start();
      await call(server, 'held', 'true');
      const [session] = await getJson<SessionInfo[]>(server, '/api/sessions');
      if (!session) throw new Error('no session');
      const operator = await server.mint({ role: 'operator', name: 'Olive' });
      const client = await LiveClient.connect(
        `${server.origin.replace('http', 'ws')}/api/sessions/${session.id}/live`,
        { token: operator },
      );
      await client.next('snapshot');
      const running = call(server, 'held', 'sleep 0.6; echo done-after-takeover');
      await client.next('call_started');
      client.send({ type: 'take_control' });
      await client.next('control', (m) => m.controller !== null);
      const beforeRelease = client.messages.length;
      client.send({ type: 'release_control' });
      await client.next('control', (m) => m.controller === null, beforeRelease);
      expect(await running).toBe('done-after-takeover');
      await client.close();
      const calls = await getJson<CallInfo[]>(server, `/api/sessions/${session.id}/calls`);
      expect(calls.map((c) => [c.command, c.controller])).toEqual([
        ['true', null],
        ['sleep 0.6; echo done-after-takeover', 'Olive'],
      ]);
    });
  });

  describe('the auth audit', () => {
    it('keeps mints, new addresses and refusals across a restart, for the admin only', async () => {
      const first = await start();
      const viewer = await first.mint({ role: 'viewer', name: 'Vic' });
      expect((await first.request('/api/sessions', { token: viewer })).status).toBe(200);
      expect((await first.request('/api/sessions', { token: 'js_wrong' })).status).toBe(401);
      const refused = await first.request('/api/audit', { token: viewer });
      expect(refused.status).toBe(403);
      expect((await errorOf(refused)).message).toBe('only the admin may read the audit trail');
      await first.close({ keepData: true });
      servers.length = 0;

      const second = await start();
      const audit = await getJson<AuditEvent[]>(second, '/api/audit');
      const trail = audit
        .reverse()
        .map((e) => [e.kind, e.name, e.role, e.status, e.url])
        .filter(
          ([, name, , , url]) => name === 'Vic' || url === '/api/sessions' || url === '/api/audit',
        );
      expect(trail).toEqual([
        ['minted', 'Vic', 'viewer', null, null],
        ['new_address', 'Vic', null, null, null],
        ['refused', null, null, 401, '/api/sessions'],
        ['refused', 'Vic', null, 403, '/api/audit'],
      ]);
    });
  });
});
