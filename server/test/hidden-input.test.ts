/**
 * Hidden input stays hidden (issue 13): what a person types while the terminal's echo is off
 * reaches neither the agent's "a human used this shell" line, nor the stored calls and
 * events, nor the recording — with `--record-keystrokes on`, in bash and in pwsh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlEvent, SessionInfo } from '../../shared/src/api.ts';
import { errorOf, startServer, type TestServer } from './support/http-server.ts';
import { LiveClient } from './support/live-client.ts';
import { PWSH } from './support/pwsh.ts';

const SECRET = 'hunter2secret';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    flags: ['--record-keystrokes', 'on', ...(PWSH === null ? [] : ['--pwsh', PWSH])],
  });
});
afterAll(() => server.close());

async function call(agent: string, command: string, dialect = 'bash'): Promise<string> {
  const response = await server.post(`/api/agents/${agent}/${dialect}`, { command });
  if (response.status !== 200) throw new Error(JSON.stringify(await errorOf(response)));
  return ((await response.json()) as { output: string }).output;
}

async function sessionOf(agent: string, dialect = 'bash'): Promise<SessionInfo> {
  const response = await server.request('/api/sessions', { token: server.adminToken });
  const found = ((await response.json()) as SessionInfo[]).find(
    (s) => s.agent === agent && s.dialect === dialect && s.state !== 'exited',
  );
  if (!found) throw new Error(`no session for ${agent}`);
  return found;
}

async function takeOver(agent: string, dialect = 'bash') {
  const session = await sessionOf(agent, dialect);
  const client = await LiveClient.connect(
    `${server.origin.replace('http', 'ws')}/api/sessions/${session.id}/live`,
    { token: server.adminToken },
  );
  await client.next('snapshot');
  client.send({ type: 'take_control' });
  await client.next('control', (m) => m.controller !== null);
  return { session, client };
}

/** Everything the server kept about a shell: calls, control events and the recording. */
async function kept(id: string): Promise<string> {
  const parts = await Promise.all(
    ['calls', 'events', 'recording'].map(async (what) =>
      (await server.request(`/api/sessions/${id}/${what}`, { token: server.adminToken })).text(),
    ),
  );
  return parts.join('\n');
}

async function eventsOf(id: string): Promise<ControlEvent[]> {
  const response = await server.request(`/api/sessions/${id}/events`, { token: server.adminToken });
  return (await response.json()) as ControlEvent[];
}

/** Types `keys` one key at a time, as a person does. */
function typeKeys(client: LiveClient, keys: string): void {
  for (const key of keys) client.send({ type: 'input', data: key });
}

/**
 * Types a hidden answer into an agent's shell: the server asks first (the shell is the
 * agent's, see secret-warning.ts) and the person says "send anyway".
 */
async function typeSecret(client: LiveClient, keys: string): Promise<void> {
  const after = client.messages.length;
  typeKeys(client, keys);
  await client.next('secret_warning', (m) => m.open, after);
  client.send({ type: 'secret_answer', send: true });
  await client.next('secret_warning', (m) => !m.open, after);
}

describe('hidden input', () => {
  it("keeps a password typed at an agent's read -s out of the result, calls and recording", async () => {
    await call('pw-agent', 'true');
    expect(await call('pw-agent', 'read -s -p \'Password: \' pw; echo "got ${#pw} chars"')).toBe(
      'Password: \n[waiting for input: bash]',
    );
    const { session, client } = await takeOver('pw-agent');
    await typeSecret(client, `${SECRET}\r`);
    await client.until(() => client.outputText().includes('got 13 chars'), 'the read to end');
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null);
    const next = await call('pw-agent', 'echo after');
    expect(next).toBe('[a human used this shell: a hidden answer was typed]\nafter');
    await client.close();
    const everything = await kept(session.id);
    expect(everything).toContain('a hidden answer was typed');
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('hunter');
    expect((await eventsOf(session.id)).map((e) => [e.kind, e.name])).toEqual([
      ['take', 'admin'],
      ['secret_sent', 'admin'],
      ['release', 'admin'],
    ]);
  });

  it('keeps visible keys in the recording and the summary, and only the hidden line out', async () => {
    await call('pw-human', 'true');
    const { session, client } = await takeOver('pw-human');
    typeKeys(client, "read -s -p 'Secret? ' pw\r");
    // The prompt itself, after the echo of the typed command (which holds the same words).
    await client.until(() => client.outputText().endsWith('Secret? '), 'the prompt');
    await typeSecret(client, `${SECRET}\r`);
    // Typed only once the read is over and the prompt is back, as a person would: keys sent
    // while the terminal still hides them count as hidden (see hidden-input.ts).
    await client.until(
      () => /Secret\? [\s\S]*[$#] $/.test(client.outputText()),
      'the prompt after the hidden answer',
    );
    typeKeys(client, 'echo "len=${#pw}"\r');
    await client.until(() => client.outputText().includes('len=13'), 'the echo');
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null);
    expect(await call('pw-human', 'echo ok')).toBe(
      '[a human used this shell: read -s -p \'Secret? \' pw; a hidden answer was typed; echo "len=${#pw}"]\nok',
    );
    await client.close();
    const everything = await kept(session.id);
    expect(everything).toContain('"i","e"'); // visible keys are recorded (the flag is on)
    expect(everything).not.toContain(SECRET);
  });

  it.skipIf(PWSH === null)(
    'keeps a Read-Host -AsSecureString answer out of the result, calls and recording',
    async () => {
      await call('pw-ps', "'ready'", 'pwsh');
      const waiting = await call(
        'pw-ps',
        '$s = Read-Host -AsSecureString -Prompt "Password"; "got $($s.Length) chars"',
        'pwsh',
      );
      expect(waiting).toMatch(/Password: \n\[waiting for input: pwsh\]$/);
      const { session, client } = await takeOver('pw-ps', 'pwsh');
      await typeSecret(client, `${SECRET}\r`);
      await client.until(() => client.outputText().includes('got 13 chars'), 'the read to end');
      client.send({ type: 'release_control' });
      await client.next('control', (m) => m.controller === null);
      expect(await call('pw-ps', "'after'", 'pwsh')).toBe(
        '[a human used this shell: a hidden answer was typed]\nafter',
      );
      await client.close();
      expect(await kept(session.id)).not.toContain(SECRET);
    },
  );
});

describe("the warning before a hidden answer goes into an agent's shell", () => {
  it('holds a password typed into the agent\'s own sudo, drops it on "don\'t send", and records that', async () => {
    // The trojan: the agent defines `sudo` as a function that keeps what is typed at it.
    await call(
      'pw-trojan',
      `sudo() { read -s -p "[sudo] password for $USER: " p; printf '%s' "$p" > "$PWD/stolen"; echo; }`,
    );
    const { session, client } = await takeOver('pw-trojan');
    typeKeys(client, 'sudo true\r');
    await client.until(() => /password for [^:]+: $/.test(client.outputText()), 'the prompt');
    const after = client.messages.length;
    typeKeys(client, `${SECRET}\r`);
    await client.next('secret_warning', (m) => m.open, after);
    client.send({ type: 'secret_answer', send: false });
    await client.next('secret_warning', (m) => !m.open, after);
    // Nothing reached the function: it still reads. A Ctrl-C (no secret in it) goes at once.
    client.send({ type: 'input', data: '\x03' });
    await client.until(
      () => /password for [^:]+: [\s\S]*[$#] $/.test(client.outputText()),
      'the prompt again',
    );
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null);
    await client.close();
    const next = await call('pw-trojan', 'ls stolen 2>&1 | sed "s/^ls: //"');
    expect(next).toMatch(/cannot access 'stolen': No such file or directory(\n\[exit code: 0\])?$/);
    expect(await kept(session.id)).not.toContain(SECRET);
    expect((await eventsOf(session.id)).map((e) => [e.kind, e.name])).toEqual([
      ['take', 'admin'],
      ['secret_withheld', 'admin'],
      ['release', 'admin'],
    ]);
  });

  it("asks nothing in a person's own shell, never an agent's", async () => {
    const opened = await server.post('/api/sessions', { dialect: 'bash' });
    const session = (await opened.json()) as SessionInfo;
    const client = await LiveClient.connect(
      `${server.origin.replace('http', 'ws')}/api/sessions/${session.id}/live`,
      { token: server.adminToken },
    );
    await client.next('snapshot');
    client.send({ type: 'take_control' });
    await client.next('control', (m) => m.controller !== null);
    typeKeys(client, 'read -s -p \'Password: \' pw; echo "len=${#pw}"\r');
    await client.until(() => client.outputText().endsWith('Password: '), 'the prompt');
    typeKeys(client, `${SECRET}\r`);
    await client.until(() => client.outputText().includes('len=13'), 'the read to end');
    expect(client.messages.some((m) => m.type === 'secret_warning')).toBe(false);
    await client.close();
    await server.request(`/api/sessions/${session.id}`, {
      method: 'DELETE',
      token: server.adminToken,
    });
  });
});
