import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startServer, type TestServer } from '../../test/support/http-server.ts';
import { DEFAULT_DESCRIPTIONS } from '../tool/contract-text.ts';

/** How long a poll waits for the engine to reach a state before the test fails. */
const POLL_DEADLINE_MS = 10_000;
const POLL_INTERVAL_MS = 20;

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function call(agent: string, command: string): Promise<Response> {
  return server.post(`/api/agents/${agent}/bash`, { command });
}

async function outputOf(response: Response): Promise<string> {
  expect(response.status).toBe(200);
  const body = (await response.json()) as { output: string };
  return body.output;
}

async function poll<T>(read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + POLL_DEADLINE_MS;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

interface Session {
  id: string;
  agent: string;
  state: string;
  command: string | null;
  pid: number | null;
}

async function sessionOf(target: TestServer, agent: string): Promise<Session | undefined> {
  const response = await target.request('/api/sessions', { token: target.adminToken });
  const sessions = (await response.json()) as Session[];
  return sessions.find((session) => session.agent === agent && session.state !== 'exited');
}

/** The agent's shell once its call is running. */
function runningSession(target: TestServer, agent: string): Promise<Session> {
  return poll(async () => {
    const session = await sessionOf(target, agent);
    return session?.state === 'running' ? session : undefined;
  });
}

async function callsOf(target: TestServer, sessionId: string): Promise<{ outcome: string }[]> {
  const response = await target.request(`/api/sessions/${sessionId}/calls`, {
    token: target.adminToken,
  });
  return (await response.json()) as { outcome: string }[];
}

describe('tool calls', () => {
  it('returns the result text as {"output"} and keeps the shell between calls', async () => {
    expect(await outputOf(await call('keeper', 'cd /tmp && export X=42'))).toBe('');
    expect(await outputOf(await call('keeper', 'echo "$PWD $X"'))).toBe('/tmp 42');
  });

  it('returns a failing command with its exit code line', async () => {
    expect(await outputOf(await call('failer', 'echo oops; false'))).toBe('oops\n[exit code: 1]');
  });

  it.each([
    ['a form type (curl -d)', 'application/x-www-form-urlencoded'],
    ['text/plain', 'text/plain'],
  ])('reads the body as JSON when the Content-Type is %s', async (_what, type) => {
    const response = await server.request('/api/agents/typed/bash', {
      method: 'POST',
      token: server.adminToken,
      headers: { 'content-type': type },
      body: '{"command":"echo typed"}',
    });
    expect(await outputOf(response)).toBe('typed');
  });

  it('reads the body as JSON when there is no Content-Type', async () => {
    const response = await server.request('/api/agents/untyped/bash', {
      method: 'POST',
      token: server.adminToken,
      body: new TextEncoder().encode('{"command":"echo untyped"}'),
    });
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await outputOf(response)).toBe('untyped');
  });

  it('runs a 1 MiB command (a heredoc) within the body limit', async () => {
    const line = 'x'.repeat(1023);
    const lines = Array.from({ length: 1024 }, () => line).join('\n');
    const command = `cat > big.txt <<'EOF'\n${lines}\nEOF\nwc -c < big.txt`;
    expect(await outputOf(await call('big', command))).toBe('1048576');
  });

  it('serves the tool definitions', async () => {
    const response = await server.request('/api/tools', { token: server.adminToken });
    const definitions = (await response.json()) as { name: string; description: string }[];
    expect(definitions.find((tool) => tool.name === 'bash')?.description).toBe(
      DEFAULT_DESCRIPTIONS.bash,
    );
  });
});

describe('refusals', () => {
  const agentIdRule =
    'an agent id is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit';

  it.each([
    ['a space', 'a%20b', 'a b'],
    ['a leading dot', '.hidden', '.hidden'],
    ['65 characters', 'a'.repeat(65), 'a'.repeat(65)],
    ['a slash', 'a%2Fb', 'a/b'],
  ])('refuses an agent id with %s with 400', async (_what, encoded, decoded) => {
    const response = await server.post(`/api/agents/${encoded}/bash`, { command: 'true' });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual({
      code: 'BAD_REQUEST',
      message: `agent id ${JSON.stringify(decoded)} is not valid: ${agentIdRule}`,
    });
  });

  it.each([
    ['an empty command', { command: '' }, 'command must be a non-empty string'],
    ['a blank command', { command: ' \t\n ' }, 'command must be a non-empty string'],
    ['a NUL', { command: 'echo a\u0000b' }, 'command must not contain a NUL character'],
    ['a lone NUL', { command: '\u0000' }, 'command must not contain a NUL character'],
    ['a number', { command: 42 }, 'command must be a non-empty string (got a number)'],
    ['null', { command: null }, 'command must be a non-empty string (got null)'],
    ['an array', { command: ['ls'] }, 'command must be a non-empty string (got an array)'],
    ['no command', {}, 'command must be a non-empty string (it is missing)'],
    [
      'an extra field',
      { command: 'ls', cwd: '/' },
      'request body has unexpected field "cwd": only "command" is allowed',
    ],
    [
      'a body that is an array',
      ['ls'],
      'request body must be a JSON object like {"command": "ls"} (got an array)',
    ],
    [
      'a body that is a string',
      'ls',
      'request body must be a JSON object like {"command": "ls"} (got a string)',
    ],
  ])('refuses %s with 400 and its own message', async (_what, body, message) => {
    const response = await server.post('/api/agents/refused/bash', body);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual({ code: 'BAD_REQUEST', message });
  });

  it('refuses malformed JSON with 400, saying why', async () => {
    const response = await server.request('/api/agents/refused/bash', {
      method: 'POST',
      token: server.adminToken,
      headers: { 'content-type': 'application/json' },
      body: '{"command": "ls"',
    });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/^request body is not valid JSON: /);
  });

  it('refuses an empty body with 400', async () => {
    const response = await server.request('/api/agents/refused/bash', {
      method: 'POST',
      token: server.adminToken,
    });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toBe(
      'request body must be a JSON object like {"command": "ls"} (got no body)',
    );
  });

  it('answers an unknown dialect with 404 naming the dialects there are', async () => {
    const tools = await server.request('/api/tools', { token: server.adminToken });
    const names = ((await tools.json()) as { name: string }[]).map((tool) => tool.name);
    const response = await server.post('/api/agents/a1/zsh', { command: 'true' });
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toEqual({
      code: 'NOT_FOUND',
      message: `no dialect "zsh" on this server; available: ${names.join(', ')}`,
    });
  });

  it('answers an unknown route with a 404 error body, never echoing the query', async () => {
    const response = await server.request('/api/nothing?token=secret', {
      token: server.adminToken,
    });
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toEqual({
      code: 'NOT_FOUND',
      message: 'no route GET /api/nothing',
    });
  });

  it('refuses a body over 2 MiB with 413 BODY_TOO_LARGE', async () => {
    const response = await call('large', 'x'.repeat(2 * 1024 * 1024));
    expect(response.status).toBe(413);
    expect(await errorOf(response)).toEqual({
      code: 'BODY_TOO_LARGE',
      message: 'request body is larger than 2 MiB',
    });
  });
});

describe('cancellation', () => {
  it('cancels the call when the client closes the request', async () => {
    const controller = new AbortController();
    const pending = server
      .request('/api/agents/leaver/bash', {
        method: 'POST',
        token: server.adminToken,
        body: JSON.stringify({ command: 'sleep 30' }),
        signal: controller.signal,
      })
      .catch((error: unknown) => error);
    const running = await runningSession(server, 'leaver');
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    const calls = await poll(async () => {
      const list = await callsOf(server, running.id);
      return list.length > 0 ? list : undefined;
    });
    expect(calls.map((recorded) => recorded.outcome)).toEqual(['cancelled']);
  });

  it('does not cancel a call whose answer was delivered', async () => {
    expect(await outputOf(await call('stayer', 'export KEPT=yes'))).toBe('');
    expect(await outputOf(await call('stayer', 'echo $KEPT'))).toBe('yes');
    const session = await sessionOf(server, 'stayer');
    const calls = await callsOf(server, session?.id ?? '');
    expect(calls.map((recorded) => recorded.outcome)).toEqual(['completed', 'completed']);
  });
});

describe('supervisor reads', () => {
  it('lists the calls of a shell with the result text the agent got', async () => {
    expect(await outputOf(await call('watched', 'echo seen'))).toBe('seen');
    const session = await sessionOf(server, 'watched');
    const response = await server.request(`/api/sessions/${session?.id}/calls`, {
      token: server.adminToken,
    });
    const calls = (await response.json()) as { command: string; output: string }[];
    expect(calls.map(({ command, output }) => ({ command, output }))).toEqual([
      { command: 'echo seen', output: 'seen' },
    ]);
  });

  it('answers calls of an unknown session with 404', async () => {
    const response = await server.request('/api/sessions/no-such-session/calls', {
      token: server.adminToken,
    });
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toEqual({
      code: 'NOT_FOUND',
      message: 'no session "no-such-session"',
    });
  });
});

describe('shutdown', () => {
  it('answers a running call with 503 SHUTTING_DOWN and ends every shell', async () => {
    const own = await startServer();
    const pending = own.post('/api/agents/late/bash', { command: 'sleep 30' });
    const running = await runningSession(own, 'late');
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    const response = await pending;
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toEqual({
      code: 'SHUTTING_DOWN',
      message: 'jumpseat is shutting down; the call was cancelled',
    });
    expect(running.pid).toBeTypeOf('number');
    expect(() => process.kill(running.pid ?? Number.NaN, 0)).toThrow(/ESRCH/);
  });
});
