/**
 * The live stream under abuse, through its sockets: live connections capped per token and
 * per shell (refused with a close reason), presence sent as joined/left changes, every
 * message type under a viewer's buffer bound (a viewer that stops reading is closed), and a
 * controller's keys bounded while the shell does not read them, with Ctrl-C going first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { LIVE_CLOSE, MAX_CLIENT_MESSAGE_BYTES } from '../../shared/src/live.ts';
import { VIEWER_MAX_BUFFERED_BYTES } from '../src/live/viewer-connection.ts';
import { startServer, type TestServer } from './support/http-server.ts';
import { LiveClient } from './support/live-client.ts';

const PER_TOKEN = 3;
const PER_SHELL = 4;
const INPUT_LIMIT = 65_536;
/** Short, so a test sees the stalled viewer closed; the default is 30 s. */
const STALL_CLOSE_MS = 500;

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    flags: [
      '--live-per-token',
      String(PER_TOKEN),
      '--live-per-shell',
      String(PER_SHELL),
      '--input-pending-max-bytes',
      String(INPUT_LIMIT),
      '--timeout-ms',
      '60000',
    ],
    liveStallCloseMs: STALL_CLOSE_MS,
  });
});

afterAll(async () => {
  await server.close();
});

async function call(agent: string, command: string): Promise<string> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command });
  const body = (await response.json()) as { output: string };
  return body.output;
}

async function shellOf(agent: string): Promise<SessionInfo> {
  await call(agent, 'true');
  const response = await server.request('/api/sessions', { token: server.adminToken });
  const found = ((await response.json()) as SessionInfo[]).find((s) => s.agent === agent);
  if (found === undefined) throw new Error(`no shell for ${agent}`);
  return found;
}

const wsOrigin = (): string => server.origin.replace('http', 'ws');
const liveUrl = (id: string): string => `${wsOrigin()}/api/sessions/${id}/live`;

async function join(id: string, token: string): Promise<LiveClient> {
  return LiveClient.connect(liveUrl(id), { token, screen: false });
}

async function closedWith(client: LiveClient): Promise<{ code: number; reason: string }> {
  return client.until(() => client.closed, 'the server to close the connection');
}

describe('caps on live connections', () => {
  it('refuses a token past its cap with 4429 and the reason, and lets it in again once one closes', async () => {
    const shell = await shellOf('capped-token');
    const token = await server.mint({ role: 'viewer', name: 'Many Tabs' });
    const open: LiveClient[] = [];
    for (let i = 0; i < PER_TOKEN; i++) {
      const client = await join(shell.id, token);
      await client.next('snapshot');
      open.push(client);
    }
    const refused = await join(shell.id, token);
    const closed = await closedWith(refused);
    expect(closed.code).toBe(LIVE_CLOSE.tooMany);
    expect(closed.reason).toBe(
      `this token has ${PER_TOKEN} live connections open, the most it may (--live-per-token); close a tab`,
    );
    expect(refused.messages).toEqual([]);
    // The dashboard stream counts too.
    const dashboard = await LiveClient.connect(`${wsOrigin()}/api/live`, { token, screen: false });
    expect((await closedWith(dashboard)).code).toBe(LIVE_CLOSE.tooMany);
    // Other tokens are not affected.
    const admin = await join(shell.id, server.adminToken);
    await admin.next('snapshot');
    await open.pop()?.close();
    // The server hears of the close a moment after the client: try a bounded few times.
    let again: LiveClient | null = null;
    for (let attempt = 0; attempt < 50 && again === null; attempt++) {
      const client = await join(shell.id, token);
      await client.until(
        () => client.closed ?? client.messages.find((m) => m.type === 'snapshot'),
        'a snapshot or a refusal',
      );
      if (client.closed === null) again = client;
    }
    expect(again?.messages.some((m) => m.type === 'snapshot')).toBe(true);
    for (const client of [...open, admin, again]) await client?.close();
  });

  it('refuses a viewer past the shell’s cap with 4429 and the reason', async () => {
    const shell = await shellOf('capped-shell');
    const watchers: LiveClient[] = [];
    for (let i = 0; i < PER_SHELL; i++) {
      const client = await join(shell.id, await server.mint({ role: 'viewer', name: `V${i}` }));
      await client.next('snapshot');
      watchers.push(client);
    }
    const late = await join(shell.id, await server.mint({ role: 'viewer', name: 'Late' }));
    const closed = await closedWith(late);
    expect(closed.code).toBe(LIVE_CLOSE.tooMany);
    expect(closed.reason).toBe(
      `this shell has ${PER_SHELL} viewers, the most it takes (--live-per-shell)`,
    );
    // Everyone already watching still gets the stream.
    await call('capped-shell', 'echo still streaming');
    for (const client of watchers) {
      await client.next('call_finished', (m) => m.call.output === 'still streaming');
      await client.close();
    }
  });
});

describe('presence', () => {
  it('tells the others who joined and who left, and the whole list only to the joiner', async () => {
    const shell = await shellOf('presence');
    const first = await join(shell.id, server.adminToken);
    const firstHello = await first.next('hello');
    await first.next('snapshot');
    const second = await join(shell.id, await server.mint({ role: 'operator', name: 'Pat' }));
    const secondHello = await second.next('hello');
    const list = await second.next('presence');
    expect(list.viewers.map((v) => v.id)).toEqual([firstHello.you.id, secondHello.you.id]);
    const joined = await first.next('viewer_joined');
    expect(joined.viewer).toEqual(secondHello.you);
    await second.close();
    const left = await first.next('viewer_left');
    expect(left.id).toBe(secondHello.you.id);
    // The first viewer got the whole list once: at its own join.
    expect(first.messages.filter((m) => m.type === 'presence')).toHaveLength(1);
    await first.close();
  });
});

describe('a viewer that stops reading', () => {
  it('is sent no more than its bound of any message type, then closed; nobody else notices', async () => {
    const shell = await shellOf('flooder');
    const steady = await join(shell.id, server.adminToken);
    await steady.next('snapshot');
    const attacker = await join(shell.id, await server.mint({ role: 'operator', name: 'Mal' }));
    await attacker.next('snapshot');
    // It stops reading, and sends messages whose error replies echo ~60 KB each (no output).
    const raw = (attacker.socket as unknown as { _socket: import('node:net').Socket })._socket;
    raw.pause();
    const bait = JSON.stringify({ type: 'x'.repeat(MAX_CLIENT_MESSAGE_BYTES - 2000) });
    let maxBuffered = 0;
    const sample = (): void => {
      for (const socket of server.app.websocketServer.clients) {
        maxBuffered = Math.max(maxBuffered, socket.bufferedAmount);
      }
    };
    const sampler = setInterval(sample, 5);
    // Kernel buffers take a few MB first: at most 400 messages (24 MB of replies).
    for (let sent = 0; sent < 400 && maxBuffered <= VIEWER_MAX_BUFFERED_BYTES; sent++) {
      attacker.socket.send(bait);
      await new Promise((resolve) => setTimeout(resolve, 1));
      sample();
    }
    expect(maxBuffered).toBeGreaterThan(VIEWER_MAX_BUFFERED_BYTES);
    // A few more: nothing more is queued for it.
    for (let sent = 0; sent < 40; sent++) attacker.socket.send(bait);
    await steady.until(
      () => server.app.websocketServer.clients.size === 1,
      'the stalled viewer to be closed',
    );
    clearInterval(sampler);
    expect(maxBuffered).toBeLessThanOrEqual(VIEWER_MAX_BUFFERED_BYTES + MAX_CLIENT_MESSAGE_BYTES);
    expect(await call('flooder', 'echo unaffected')).toBe('unaffected');
    await steady.next('call_finished', (m) => m.call.output === 'unaffected');
    expect(steady.problems).toEqual([]);
    await steady.close();
  });
});

describe("a controller's keys", () => {
  it('are dropped past the pending bound, the controller is told, and Ctrl-C goes first', async () => {
    const shell = await shellOf('typist');
    const controller = await join(shell.id, server.adminToken);
    const hello = await controller.next('hello');
    await controller.next('snapshot');
    controller.send({ type: 'take_control' });
    await controller.next('control', (m) => m.controller?.id === hello.you.id);
    // A slow reader: it notes each line, then spins a while (no child process, so the
    // interrupt always finds the shell itself in the foreground).
    controller.send({
      type: 'input',
      data: 'rm -f lines.txt; echo loop-$((1+1))-started; while IFS= read -r l; do echo "${l:0:6}" >> lines.txt; for ((i = 0; i < 20000; i++)); do :; done; done\r',
    });
    await controller.until(() => outputOf(controller).includes('loop-2-started'), 'the loop');
    // 20 frames of 30 lines of 2,000 bytes: 1.2 MB it cannot read in time. The first goes
    // alone (the terminal echoes its first line as it takes it), then the rest at once.
    const LINES_PER_FRAME = 30;
    const FRAMES = 20;
    const frameOf = (frame: number): string => {
      let data = '';
      for (let i = 0; i < LINES_PER_FRAME; i++) {
        const n = frame * LINES_PER_FRAME + i;
        data += `${String(n).padStart(6, '0')}${'x'.repeat(1993)}\r`;
      }
      return data;
    };
    controller.send({ type: 'input', data: frameOf(0) });
    await controller.until(() => outputOf(controller).includes('000000xxx'), 'the first line');
    for (let frame = 1; frame < FRAMES; frame++) {
      controller.send({ type: 'input', data: frameOf(frame) });
    }
    const dropped = await controller.next('input_dropped');
    expect(dropped.limitBytes).toBe(INPUT_LIMIT);
    expect(dropped.pendingBytes).toBeLessThanOrEqual(INPUT_LIMIT);
    expect(dropped.droppedBytes).toBe(LINES_PER_FRAME * 2000);
    // Told once per run of dropped frames, not once per frame.
    expect(controller.messages.filter((m) => m.type === 'input_dropped')).toHaveLength(1);
    const before = outputOf(controller).length;
    controller.send({ type: 'input', data: '\x03' });
    // The terminal echoes ^C as it takes it (after what it held already, a few lines).
    await controller.until(() => outputOf(controller).slice(before).includes('^C'), 'the ^C');
    controller.send({ type: 'input', data: 'echo "count=$(cat lines.txt 2>/dev/null | wc -l)"\r' });
    const counted = await controller
      .until(
        () => /count=(\d+)/.exec(outputOf(controller))?.[1],
        'the count of lines the loop read',
      )
      .catch((error: unknown) => {
        console.log(
          JSON.stringify(
            outputOf(controller)
              .replace(/x{20,}/g, 'X')
              .slice(-1500),
          ),
        );
        throw error;
      });
    // Without the bound and Ctrl-C first, the loop would read all 600 lines (a minute).
    expect(Number(counted)).toBeLessThan((FRAMES * LINES_PER_FRAME) / 2);
    controller.send({ type: 'release_control' });
    await controller.next('control', (m) => m.controller === null);
    await controller.close();
  });
});

function outputOf(client: LiveClient): string {
  return client.outputText();
}
