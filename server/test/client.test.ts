/**
 * The TypeScript client, imported by its package name as a harness would, against a real
 * server (its compiled form, from the packed tarball, in package.test.ts).
 */
import {
  BadRequestError,
  ForbiddenError,
  HumanControlError,
  JumpseatApiError,
  JumpseatClient,
  type LiveEvent,
  NotFoundError,
  UnauthorizedError,
} from 'jumpseat/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/http-server.ts';

let server: TestServer;
let admin: JumpseatClient;

beforeAll(async () => {
  server = await startServer();
  admin = new JumpseatClient({ url: `${server.origin}/`, token: server.adminToken });
});
afterAll(async () => {
  await server.close();
});

async function refusalOf(promise: Promise<unknown>): Promise<JumpseatApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof JumpseatApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('JumpseatClient', () => {
  it('runs commands in the persistent shell and reads them back as a supervisor', async () => {
    const { token } = await admin.createToken({ role: 'agent', agent: 'client-a' });
    const agent = new JumpseatClient({ url: server.origin, token });
    expect(await agent.bash('client-a', 'cd /tmp && echo hello; false')).toBe(
      'hello\n[exit code: 1]',
    );
    expect(await agent.bash('client-a', 'pwd')).toBe('/tmp');

    const shell = (await admin.sessions()).find((session) => session.agent === 'client-a');
    expect(shell).toMatchObject({ dialect: 'bash', state: 'idle', lastExitCode: 0 });
    const calls = await admin.calls(shell?.id ?? '');
    expect(
      calls.map(({ command, output, exitCode, outcome }) => [command, output, exitCode, outcome]),
    ).toEqual([
      ['cd /tmp && echo hello; false', 'hello\n[exit code: 1]', 1, 'completed'],
      ['pwd', '/tmp', 0, 'completed'],
    ]);
  });

  it('gives the tool definitions in each format', async () => {
    const [openai] = await admin.tools('openai');
    expect(openai).toMatchObject({ type: 'function', function: { name: 'bash' } });
    const [anthropic] = await admin.tools();
    expect(anthropic).toMatchObject({ name: 'bash', input_schema: { required: ['command'] } });
  });

  it('cancels a call when its signal aborts: the shell is reset', async () => {
    const marked = await admin.bash('client-cancel', 'export MARK=kept; echo ok');
    expect(marked).toBe('ok');
    const controller = new AbortController();
    const call = admin.bash('client-cancel', 'sleep 600', { signal: controller.signal });
    for (;;) {
      const sessions = await admin.sessions();
      if (sessions.some((s) => s.agent === 'client-cancel' && s.state === 'running')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    expect(await admin.bash('client-cancel', 'echo "${MARK:-unset}"')).toBe('unset');
  });

  it("outlasts fetch's headers timeout: a call takes as long as its command", async () => {
    // Node's fetch gives up on a reply whose headers take over 300 s (undici's default
    // headersTimeout), which cut every long call and reset the shell. Shorten that default to
    // 1 s in this process: a bare fetch now fails on a 2.5 s call; the client does not.
    await server.request('/api/me', { token: server.adminToken }); // fetch sets its dispatcher up
    const key = Symbol.for('undici.globalDispatcher.1');
    const global = globalThis as unknown as Record<symbol, object>;
    const saved = global[key];
    if (saved === undefined) throw new Error('no global fetch dispatcher to shorten');
    const Agent = saved.constructor as new (options: { headersTimeout: number }) => object;
    global[key] = new Agent({ headersTimeout: 1000 });
    try {
      const bare = await fetch(`${server.origin}/api/agents/client-long-fetch/bash`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.adminToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ command: 'sleep 2.5; echo late' }),
      }).catch((error: unknown) => error);
      expect(bare).toBeInstanceOf(TypeError);
      expect((bare as TypeError & { cause?: { code?: string } }).cause?.code).toBe(
        'UND_ERR_HEADERS_TIMEOUT',
      );
      expect(await admin.bash('client-long', 'export KEPT=yes; sleep 2.5; echo late')).toBe('late');
      expect(await admin.bash('client-long', 'echo "$KEPT"')).toBe('yes');
    } finally {
      global[key] = saved;
    }
  });

  it('throws a typed error for 400, 401, 403 and 404', async () => {
    const empty = await refusalOf(admin.bash('client-b', '  '));
    expect(empty).toBeInstanceOf(BadRequestError);
    expect([empty.status, empty.code, empty.message]).toEqual([
      400,
      'BAD_REQUEST',
      'command must be a non-empty string',
    ]);

    const stranger = new JumpseatClient({ url: server.origin, token: 'js_unknown' });
    const unknown = await refusalOf(stranger.sessions());
    expect(unknown).toBeInstanceOf(UnauthorizedError);
    expect(unknown.status).toBe(401);

    const { token } = await admin.createToken({ role: 'agent', agent: 'client-b' });
    const agent = new JumpseatClient({ url: server.origin, token });
    const other = await refusalOf(agent.bash('client-c', 'true'));
    expect(other).toBeInstanceOf(ForbiddenError);
    expect(other.message).toBe('this token may only call agent "client-b"');

    const missing = await refusalOf(admin.calls('no-such-session'));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.code).toBe('NOT_FOUND');
  });
});

describe('JumpseatClient.watch', () => {
  it('streams a shell live, takes control, and gets the human line into the next result', async () => {
    expect(await admin.bash('client-watch', 'echo before')).toBe('before');
    const [session] = (await admin.sessions()).filter((s) => s.agent === 'client-watch');
    const events: LiveEvent[] = [];
    const watch = await admin.watch(session?.id ?? '', (event) => events.push(event));
    const seen = (check: (event: LiveEvent) => boolean) =>
      expect.poll(() => events.some(check), { timeout: 15_000 }).toBe(true);
    await seen((e) => e.type === 'snapshot');
    expect(await admin.bash('client-watch', 'echo streamed')).toBe('streamed');
    await seen((e) => e.type === 'call_finished' && e.call.output === 'streamed');
    const output = () =>
      Buffer.concat(
        events.flatMap((e) => (e.type === 'output' ? [Buffer.from(e.data)] : [])),
      ).toString('utf8');
    expect(output()).toContain('echo streamed\r\nstreamed\r\n');

    watch.send({ type: 'take_control' });
    await seen((e) => e.type === 'control' && e.controller?.name === 'admin');
    const refused = await refusalOf(admin.bash('client-watch', 'echo agent'));
    expect(refused).toBeInstanceOf(HumanControlError);
    watch.send({ type: 'input', data: 'export BY=client\r' });
    await seen(() => output().includes('export BY=client'));
    watch.send({ type: 'release_control' });
    await seen((e) => e.type === 'control' && e.controller === null);
    expect(await admin.bash('client-watch', 'echo $BY')).toBe(
      '[a human used this shell: export BY=client]\nclient',
    );
    watch.close();
    await watch.closed;
    expect(events.at(-1)).toEqual({ type: 'connection', state: 'closed' });
  });

  it('rejects when the server refuses to stream', async () => {
    await expect(admin.watch('no-such-session', () => undefined)).rejects.toThrow('HTTP 404');
  });

  it('rejects, and then stays quiet, when nothing listens at the address', async () => {
    const events: LiveEvent[] = [];
    // Port 9 (discard) on loopback: nothing listens there, the connection is refused.
    const nowhere = new JumpseatClient({ url: 'http://127.0.0.1:9', token: server.adminToken });
    await expect(nowhere.watch('any', (event) => events.push(event))).rejects.toThrow();
    const settled = events.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(events.slice(settled)).toEqual([]);
    expect(events.at(-1)).toEqual({ type: 'connection', state: 'closed' });
  });
});

describe('JumpseatClient for shared shells', () => {
  it('opens a shell of its own, shares it, is named by the link holder, revokes, hands off', async () => {
    const shell = await admin.openShell('bash');
    expect(shell).toMatchObject({ agent: null, owner: 'admin', state: 'idle' });
    const created = await admin.share(shell.id, { role: 'viewer', expiresInSeconds: 600 });
    const guest = new JumpseatClient({ url: server.origin, token: created.token });
    expect(await guest.me()).toMatchObject({ named: false, scope: shell.id });
    expect(await guest.setName('Gwen')).toMatchObject({ name: 'Gwen', named: true });
    expect((await guest.session(shell.id)).id).toBe(shell.id);
    expect(await refusalOf(guest.sessions())).toBeInstanceOf(ForbiddenError);
    expect(await admin.shares(shell.id)).toEqual([{ ...created.share, name: 'Gwen' }]);
    await admin.revokeShare(shell.id, created.share.id);
    expect(await refusalOf(guest.me())).toBeInstanceOf(UnauthorizedError);
    expect(await admin.shares(shell.id)).toEqual([]);

    const handed = await admin.handOff(shell.id, 'client-heir');
    expect(handed.agent).toBe('client-heir');
    // A refusal other than a human at the controls is not a HumanControlError.
    const again = await refusalOf(admin.handOff((await admin.openShell('bash')).id, 'client-heir'));
    expect(again.code).toBe('AGENT_HAS_SHELL');
    expect(again).not.toBeInstanceOf(HumanControlError);
    // The agent's call runs in that very process (its pid as the host numbers it).
    await admin.bash('client-heir', 'true');
    const heirs = (await admin.sessions()).filter((s) => s.agent === 'client-heir');
    expect(heirs.map((s) => [s.id, s.pid])).toEqual([[shell.id, shell.pid]]);
    await admin.closeShell(shell.id);
    expect((await admin.session(shell.id)).state).toBe('exited');
    expect((await admin.sessions('ended')).map((s) => s.id)).toContain(shell.id);
    expect((await admin.sessions()).map((s) => s.id)).toContain(shell.id);
    // Nobody took the controls; the hand-off is the shell's one control event.
    expect((await admin.events(shell.id)).map((e) => [e.kind, e.name])).toEqual([
      ['hand_off', 'client-heir'],
    ]);
    const recording = await admin.recording(shell.id);
    expect(JSON.parse(recording.split('\n')[0] ?? '')).toMatchObject({ version: 2 });
    expect(recording).toContain('"title":"admin · bash"');
  });
});
