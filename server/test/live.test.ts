/**
 * The live protocol against a real server: snapshots, output frames, resumes, roles, and the
 * take-over semantics as an agent sees them over HTTP.
 */
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import {
  MAX_OUTPUT_FRAME_BYTES,
  VIEWER_MAX_BUFFERED_BYTES,
} from '../src/live/viewer-connection.ts';
import { bashCall, startServer, type TestServer } from './support/http-server.ts';
import { LiveClient, sameOffset, sameScreen } from './support/live-client.ts';

let server: TestServer;
let operatorToken: string;
let viewerToken: string;

beforeAll(async () => {
  server = await startServer({ flags: ['--timeout-ms', '6000'] });
  operatorToken = await server.mint({ role: 'operator', name: 'Olive' });
  viewerToken = await server.mint({ role: 'viewer', name: 'Vic' });
});

afterAll(async () => {
  await server.close();
});

function call(agent: string, command: string): Promise<{ status: number; output: string }> {
  return bashCall(server, agent, command);
}

async function sessionOf(agent: string): Promise<SessionInfo> {
  const response = await server.request('/api/sessions', { token: server.adminToken });
  const sessions = (await response.json()) as SessionInfo[];
  const found = sessions.find((s) => s.agent === agent && s.state !== 'exited');
  if (!found) throw new Error(`no session for ${agent}`);
  return found;
}

function liveUrl(id: string): string {
  return `${server.origin.replace('http', 'ws')}/api/sessions/${id}/live`;
}

async function watch(agent: string, token = server.adminToken, from?: number) {
  const session = await sessionOf(agent);
  const client = await LiveClient.connect(liveUrl(session.id), {
    token,
    ...(from === undefined ? {} : { from }),
  });
  return { session, client };
}

describe('joining a shell', () => {
  it('sends hello and a snapshot, then the output of a call and its exact result', async () => {
    await call('join1', 'echo ready');
    const { client } = await watch('join1');
    const hello = await client.next('hello');
    expect(hello.canControl).toBe(true);
    expect(hello.you.name).toBe('admin');
    const snapshot = await client.next('snapshot');
    expect(snapshot.reason).toBe('join');
    expect([snapshot.cols, snapshot.rows]).toEqual([120, 40]);
    expect(await client.screenText()).toContain('ready');

    const result = await call('join1', 'printf "%s\\n" alpha beta; false');
    expect(result.output).toBe('alpha\nbeta\n[exit code: 1]');
    const finished = await client.next('call_finished');
    expect(finished.call.output).toBe(result.output);
    expect(finished.call.exitCode).toBe(1);
    expect(client.messages.some((m) => m.type === 'call_started')).toBe(true);
    await client.until(() => client.outputText().includes('beta'), 'the output');
    expect(client.outputText()).toContain('printf "%s\\n" alpha beta; false\r\nalpha\r\nbeta\r\n');
    expect(client.problems).toEqual([]);
    await client.close();
  });

  it('never shows a marker, the wrapper or its nonce to a viewer', async () => {
    await call('marks', 'true');
    const { client } = await watch('marks');
    await client.next('snapshot');
    await call('marks', 'echo one; echo two');
    await client.next('call_finished');
    const text = client.outputText();
    expect(text).not.toContain('\x1b]7717');
    expect(text).not.toMatch(/__jumpseat|__js[0-9a-f]+_/);
    expect((await client.next('snapshot')).data).not.toMatch(/__jumpseat|__js[0-9a-f]+_/);
    await client.close();
  });

  it('gives a late joiner the same screen as an early one', async () => {
    await call('late', 'true');
    const early = await watch('late');
    await early.client.next('snapshot');
    await call(
      'late',
      'for i in $(seq 1 60); do echo "line $i"; done; printf "\\e[31mred\\e[0m\\n"',
    );
    await early.client.next('call_finished');
    const late = await watch('late');
    await late.client.next('snapshot');
    expect(await sameScreen(late.client, early.client, 'both at the same offset')).toContain(
      'line 60',
    );
    await early.client.close();
    await late.client.close();
  });

  it('resumes from an offset with nothing lost or doubled', async () => {
    await call('resume', 'true');
    const steady = await watch('resume');
    await steady.client.next('snapshot');
    const first = await watch('resume');
    await first.client.next('snapshot');
    const running = call('resume', 'for i in $(seq 1 3000); do echo "row $i"; done');
    await first.client.until(() => first.client.outputText().includes('row 500'), 'row 500');
    const position = first.client.position;
    const before = first.client.outputText();
    await first.client.close();
    const second = await watch('resume', server.adminToken, position);
    expect((await second.client.next('resumed')).offset).toBe(position);
    await running;
    await steady.client.next('call_finished');
    await sameOffset(second.client, steady.client, 'the resumed client to catch up');
    // Both joined after the same call; compare from where the resumed client's stream began.
    const steadyText = steady.client.outputFrom(first.client.startOffset ?? 0);
    expect(before + second.client.outputText()).toBe(steadyText);
    expect(steadyText).toContain('row 3000');
    expect(second.client.problems).toEqual([]);
    await steady.client.close();
    await second.client.close();
  });

  it('sends a fresh snapshot when the offset asked for is not held', async () => {
    await call('expired', 'echo kept');
    const { client } = await watch('expired', server.adminToken, 999_999_999);
    expect((await client.next('snapshot')).reason).toBe('expired');
    expect(await client.screenText()).toContain('kept');
    await client.close();
  });
});

describe('a stalled viewer', () => {
  // Its own server: 10 MB through two viewers in this one process takes seconds, far from
  // the 6 s deadline the other tests use.
  let roomy: TestServer;
  beforeAll(async () => {
    roomy = await startServer({ flags: ['--timeout-ms', '120000'] });
  });
  afterAll(async () => {
    await roomy.close();
  });

  it('never holds more than its bound, does not slow anyone, and is resynced when it reads again', async () => {
    const call = async (agent: string, command: string) => {
      const response = await roomy.post(`/api/agents/${agent}/bash`, { command });
      return (await response.json()) as { output: string };
    };
    await call('stall', 'true');
    const [session] = (await (
      await roomy.request('/api/sessions', { token: roomy.adminToken })
    ).json()) as SessionInfo[];
    const url = `${roomy.origin.replace('http', 'ws')}/api/sessions/${session?.id}/live`;
    const stalled = { client: await LiveClient.connect(url, { token: roomy.adminToken }) };
    const steady = { client: await LiveClient.connect(url, { token: roomy.adminToken }) };
    await stalled.client.next('snapshot');
    await steady.client.next('snapshot');
    // The stalled client stops reading its socket: the kernel buffers fill, then the server's.
    const raw = (stalled.client.socket as unknown as { _socket: import('node:net').Socket })
      ._socket;
    raw.pause();
    let maxBuffered = 0;
    const sampler = setInterval(() => {
      for (const socket of roomy.app.websocketServer.clients) {
        maxBuffered = Math.max(maxBuffered, socket.bufferedAmount);
      }
    }, 5);
    // Kernel socket buffers absorb a varying few MB first: flood (5 MB a time, at most 8
    // times) until the server's own buffer for the stalled viewer reached its bound.
    for (let flood = 0; flood < 8 && maxBuffered <= VIEWER_MAX_BUFFERED_BYTES; flood++) {
      const result = await call(
        'stall',
        "yes 'a stalled viewer must not hold this line of text' | head -n 100000",
      );
      expect(result.output).toMatch(/^a stalled viewer must not hold this line of text\n/);
      expect(result.output).toContain('[full output saved to ');
    }
    expect(maxBuffered).toBeGreaterThan(VIEWER_MAX_BUFFERED_BYTES);
    expect((await call('stall', "seq 1 20 | sed 's/^/tail /'")).output).toMatch(/tail 20$/);
    clearInterval(sampler);
    await steady.client.next('call_finished', (m) => m.call.command.startsWith('seq'));
    expect(steady.client.problems).toEqual([]);
    expect(maxBuffered).toBeLessThanOrEqual(VIEWER_MAX_BUFFERED_BYTES + MAX_OUTPUT_FRAME_BYTES);
    raw.resume();
    const resync = await stalled.client.next('snapshot', (m) => m.reason === 'resync');
    expect(resync.offset).toBeGreaterThan(0);
    const caughtUp = await sameScreen(stalled.client, steady.client, 'the stalled viewer');
    expect(caughtUp).toContain('tail 20');
    await stalled.client.close();
    await steady.client.close();
  });
});

describe('refusals', () => {
  it('refuses an upgrade without a token, from a foreign origin, or for an unknown shell', async () => {
    await call('refuse', 'true');
    const session = await sessionOf('refuse');
    await expect(LiveClient.connect(liveUrl(session.id))).rejects.toThrow('401');
    await expect(
      LiveClient.connect(liveUrl(session.id), {
        token: server.adminToken,
        origin: 'http://evil.example',
      }),
    ).rejects.toThrow('403');
    await expect(
      LiveClient.connect(liveUrl('no-such-shell'), { token: server.adminToken }),
    ).rejects.toThrow('404');
    const agentToken = await server.mint({ role: 'agent', agent: 'refuse' });
    await expect(LiveClient.connect(liveUrl(session.id), { token: agentToken })).rejects.toThrow(
      '403',
    );
    const sameOrigin = await LiveClient.connect(liveUrl(session.id), {
      token: server.adminToken,
      origin: server.origin,
    });
    await sameOrigin.next('snapshot');
    await sameOrigin.close();
  });

  it('answers malformed, unknown, binary and oversized messages with errors and lives on', async () => {
    await call('malformed', 'true');
    const { client } = await watch('malformed');
    await client.next('snapshot');
    const errors = () => client.messages.filter((m) => m.type === 'error');
    client.socket.send('{not json');
    client.send({ type: 'launch_missiles' });
    client.send({ type: 'resize', cols: 1, rows: 10 });
    client.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    client.send({ type: 'input', data: 'x'.repeat(70 * 1024) });
    await client.until(() => errors().length === 5, 'five errors');
    expect(errors().map((m) => (m.type === 'error' ? m.code : ''))).toEqual([
      'BAD_MESSAGE',
      'BAD_MESSAGE',
      'BAD_MESSAGE',
      'BAD_MESSAGE',
      'TOO_LARGE',
    ]);
    expect(JSON.stringify(errors())).toContain('unknown message type \\"launch_missiles\\"');
    expect(JSON.stringify(errors())).toContain('/cols must be >= 2');
    client.send({ type: 'take_control' });
    expect((await client.next('control', (m) => m.controller !== null)).controller?.name).toBe(
      'admin',
    );
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null, client.messages.length - 1);
    await client.close();
  });

  it("refuses a viewer's control, input and interrupt on the server", async () => {
    await call('viewer', 'true');
    const { client } = await watch('viewer', viewerToken);
    const hello = await client.next('hello');
    expect(hello.canControl).toBe(false);
    await client.next('snapshot');
    client.send({ type: 'take_control' });
    client.send({ type: 'input', data: 'touch /tmp/should-not-exist\r' });
    client.send({ type: 'interrupt' });
    await client.until(
      () =>
        client.messages.filter((m) => m.type === 'error' && m.code === 'FORBIDDEN').length === 3,
      'three refusals',
    );
    expect((await sessionOf('viewer')).controller).toBeNull();
    expect((await call('viewer', 'echo still mine')).output).toBe('still mine');
    await client.close();
  });
});

describe('take-over', () => {
  it('gives the controls to one human: agents get 409, and the next result says what the human ran', async () => {
    await call('takeover', 'cd /tmp');
    const operator = await watch('takeover', operatorToken);
    // Another operator: not in charge (the admin would take the controls over, issue 13).
    const other = await watch('takeover', await server.mint({ role: 'operator', name: 'Otto' }));
    await operator.client.next('snapshot');
    await other.client.next('snapshot');
    operator.client.send({ type: 'take_control' });
    const control = await other.client.next('control', (m) => m.controller !== null);
    expect(control.controller?.name).toBe('Olive');
    expect((await sessionOf('takeover')).state).toBe('human_control');
    expect((await sessionOf('takeover')).controller).toBe('Olive');

    const refused = await call('takeover', 'echo agent');
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.output).code).toBe('HUMAN_CONTROL');

    other.client.send({ type: 'take_control' });
    await other.client.next('error', (m) => m.code === 'CONTROLLED');

    operator.client.send({ type: 'input', data: 'export FROM_HUMAN=42; cd /\r' });
    await other.client.until(
      () => other.client.outputText().includes('export FROM_HUMAN=42'),
      'the echo',
    );
    operator.client.send({ type: 'release_control' });
    await other.client.next('control', (m) => m.controller === null);

    const next = await call('takeover', 'echo "$FROM_HUMAN in $PWD"');
    expect(next.output).toBe('[a human used this shell: export FROM_HUMAN=42; cd /]\n42 in /');
    expect((await call('takeover', 'echo again')).output).toBe('again');
    await operator.client.close();
    await other.client.close();
  });

  it('lets a human answer a waiting program; the command completes and the agent is told', async () => {
    await call('answer', 'true');
    const waiting = await call('answer', 'read -p \'name? \' n; echo "hi $n"');
    expect(waiting.output).toBe('name? \n[waiting for input: bash]');
    expect((await sessionOf('answer')).state).toBe('waiting_input');
    const { client } = await watch('answer', operatorToken);
    await client.next('snapshot');
    client.send({ type: 'take_control' });
    await client.next('control', (m) => m.controller !== null);
    client.send({ type: 'input', data: 'Bob\r' });
    await client.until(() => client.outputText().includes('hi Bob'), 'the answer');
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null);
    // The end mark follows the answer's output, and may be read a moment after it.
    await expect.poll(async () => (await sessionOf('answer')).state).toBe('idle');
    expect((await call('answer', 'echo "n=$n"')).output).toBe(
      '[a human used this shell: Bob]\nn=Bob',
    );
    await client.close();
  });

  it('shows a program a person leaves running as waiting, and idle once it ends', async () => {
    await call('left-running', 'true');
    const { client } = await watch('left-running', operatorToken);
    await client.next('snapshot');
    // Taken and handed back within 2.5 s of the agent's call's end: the engine looks for a job
    // left behind by that call meanwhile (at 0.03, 0.3, 1 and 2.5 s), and the person's job is
    // not one; the hand-back adopts it.
    await call('left-running', 'true');
    client.send({ type: 'take_control' });
    await client.next('control', (m) => m.controller !== null);
    client.send({ type: 'input', data: 'sleep 6; (exit 7)\r' });
    await client.until(() => client.outputText().includes('(exit 7)'), 'the echo');
    const beforeRelease = client.messages.length;
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null, beforeRelease);
    expect((await sessionOf('left-running')).state).toBe('waiting_input');
    // Its prompt comes after the agent's last call: it ends the program all the same.
    await expect
      .poll(async () => (await sessionOf('left-running')).state, { timeout: 15_000 })
      .toBe('idle');
    expect((await call('left-running', 'echo next')).output).toBe(
      '[a human used this shell: sleep 6; (exit 7)]\nnext',
    );
    await client.close();
  });

  it('gives the human line editing and history at the prompt, and the agent none', async () => {
    await call('editing', 'echo recall-me');
    const { client } = await watch('editing', operatorToken);
    await client.next('snapshot');
    client.send({ type: 'take_control' });
    await client.next('control', (m) => m.controller !== null);
    // Up arrow recalls the agent's last command; Ctrl-A and typing edit it.
    client.send({ type: 'input', data: '\x1b[A\x01echo again; \r' });
    await client.until(
      () => client.outputText().includes('again\r\nrecall-me'),
      'the edited command',
    );
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null);
    expect((await call('editing', "set -o | grep -w emacs; printf '%s\\t|' a b")).output).toBe(
      '[a human used this shell: echo again; (edited)]\nemacs          \toff\na\t|b\t|',
    );
    expect(client.outputText()).not.toContain('set -o emacs');
    expect(client.outputText()).not.toContain('set +o emacs');
    await client.close();
  });

  it("switches line editing with the system's stty, whatever functions and PATH the agent left", async () => {
    // Each was run as the shell found it: the sleeping `stty` held the switch past its limit,
    // and the person's line came before the switch's prompt.
    await call('editing-hostile', 'stty() { /bin/sleep 5; }; set() { :; }; PATH=/nowhere');
    const { client } = await watch('editing-hostile', operatorToken);
    await client.next('snapshot');
    client.send({ type: 'take_control' });
    await client.next('control', (m) => m.controller !== null);
    client.send({ type: 'input', data: 'echo typed-$((6 * 7))\r' });
    await client.until(() => client.outputText().includes('typed-42'), 'the typed command');
    // The typed line and its output, with no prompt of ours between them.
    expect(client.outputText()).toContain('echo typed-$((6 * 7))\r\ntyped-42\r\n');
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null);
    expect(client.outputText()).not.toMatch(/emacs|stty/);
    const next = await call(
      'editing-hostile',
      '[[ -o emacs ]] && echo on || echo off; type -t stty',
    );
    expect(next.output).toBe('[a human used this shell: echo typed-$((6 * 7))]\noff\nfunction');
    await client.close();
  });

  it('keeps the echo off when a human takes over at a password prompt', async () => {
    await call('secret', 'true');
    const waiting = await call('secret', 'read -s -p \'Password: \' pw; echo "got ${#pw} chars"');
    expect(waiting.output).toBe('Password: \n[waiting for input: bash]');
    const { client } = await watch('secret', operatorToken);
    await client.next('snapshot');
    client.send({ type: 'take_control' });
    await client.next('control', (m) => m.controller !== null);
    client.send({ type: 'input', data: 'hunter2\r' });
    // An agent's shell: the keys wait for the person's "send anyway" (secret-warning.ts).
    await client.next('secret_warning', (m) => m.open);
    client.send({ type: 'secret_answer', send: true });
    await client.until(() => client.outputText().includes('got 7 chars'), 'the command to finish');
    expect(client.outputText()).not.toContain('hunter2');
    expect(await client.screenText()).not.toContain('hunter2');
    // Back at the prompt the human gets readline, which echoes (it reads the terminal raw).
    const { pid } = await sessionOf('secret');
    const tty = readlinkSync(`/proc/${pid}/fd/0`);
    await expect
      .poll(() => execFileSync('stty', ['-F', tty, '-a'], { encoding: 'utf8' }))
      .toMatch(/(^|\s)-icanon(\s|$)/);
    client.send({ type: 'input', data: 'echo visible\r' });
    await client.until(
      () => client.outputText().includes('echo visible'),
      'the echo at the prompt',
    );
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null);
    await client.close();
  });

  it("pauses a running call's deadline while a human holds the shell", async () => {
    await call('paused', 'true');
    const { client } = await watch('paused', operatorToken);
    await client.next('snapshot');
    // The server's timeout is 6 s; the command runs 7 s, 6.5 of them under the human.
    const running = call('paused', 'sleep 7; echo finished');
    await client.next('call_started');
    client.send({ type: 'take_control' });
    await client.next('control', (m) => m.controller !== null);
    const result = await running;
    expect(result.output).toBe('finished');
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null);
    await client.close();
  });

  it('interrupts the foreground program and says so in the result', async () => {
    await call('interrupt', 'true');
    const { client } = await watch('interrupt', operatorToken);
    await client.next('snapshot');
    client.send({ type: 'interrupt' });
    await client.next('error', (m) => m.code === 'NOTHING_TO_INTERRUPT');
    const running = call('interrupt', 'echo started; sleep 30');
    await client.until(() => client.outputText().includes('started\r\n'), 'the command to start');
    client.send({ type: 'interrupt' });
    // bash starts a new line after a job killed by SIGINT, as after a typed ^C.
    expect((await running).output).toMatch(
      /^\[a human used this shell: interrupted the running command\]\nstarted\n+\[exit code: 130\]$/,
    );
    await client.close();
  });

  it("never switches the echo of the next shell on its terminal from a closed shell's hand-back", async () => {
    // A hand-back waits up to 2 s for the prompt after its editing switch, then switches the
    // echo off; a shell closed meanwhile gives its terminal's number to the next shell, whose
    // person must still see what they type (the Playwright example's unechoed answer).
    await call('closing', "PS1='$(sleep 1)\\$ '");
    await new Promise((resolve) => setTimeout(resolve, 1500)); // its slow prompt is up
    const closing = await watch('closing', operatorToken);
    await closing.client.next('snapshot');
    closing.client.send({ type: 'take_control' });
    await closing.client.next('control', (m) => m.controller !== null);
    closing.client.send({ type: 'release_control' });
    await new Promise((resolve) => setTimeout(resolve, 100)); // its hand-back waits
    const released = Date.now();
    await server.request(`/api/sessions/${closing.session.id}`, {
      token: server.adminToken,
      method: 'DELETE',
    });
    await closing.client.close();
    expect((await call('next', 'read -r -p \'Sure? \' a; echo "got $a"')).output).toBe(
      'Sure? \n[waiting for input: bash]',
    );
    const { client } = await watch('next', operatorToken);
    await client.next('snapshot');
    client.send({ type: 'take_control' });
    await client.next('control', (m) => m.controller !== null);
    // Past the closed shell's hand-back: its 2 s wait, then its stty.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, released + 3500 - Date.now())));
    client.send({ type: 'input', data: 'y\r' });
    await client.until(() => client.outputText().includes('got y'), 'the answer');
    expect(client.outputText()).toMatch(/^y\r\ngot y/);
    await client.close();
  });

  it('hands the shell back when the controller disconnects, at the agent size', async () => {
    await call('leave', 'true');
    const { client } = await watch('leave', operatorToken);
    const other = await watch('leave');
    await client.next('snapshot');
    client.send({ type: 'take_control' });
    await client.next('control', (m) => m.controller !== null);
    client.send({ type: 'resize', cols: 80, rows: 24 });
    expect(await other.client.next('resize')).toMatchObject({ cols: 80, rows: 24 });
    expect((await call('leave', 'tput cols')).status).toBe(409);
    await client.close();
    await other.client.next('control', (m) => m.controller === null);
    expect(await other.client.next('resize', (m) => m.cols === 120)).toMatchObject({
      cols: 120,
      rows: 40,
    });
    expect((await call('leave', 'tput cols; tput lines')).output).toBe('120\n40');
    await other.client.close();
  });
});

describe('the dashboard stream', () => {
  it('lists every shell, then sends each change', async () => {
    await call('dash', 'true');
    const url = `${server.origin.replace('http', 'ws')}/api/live`;
    const WebSocket = (await import('ws')).default;
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${viewerToken}` } });
    const messages: { type: string; sessions?: SessionInfo[]; session?: SessionInfo }[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve) => socket.once('open', resolve));
    const running = call('dash', 'sleep 0.3; echo done');
    await running;
    await expect
      .poll(() =>
        messages.some((m) => m.session?.agent === 'dash' && m.session.state === 'running'),
      )
      .toBe(true);
    expect(messages[0]?.type).toBe('sessions');
    expect(messages[0]?.sessions?.some((s) => s.agent === 'dash')).toBe(true);
    socket.close();
  });
});
