/**
 * The live stream's cost: a shell printing 20 MB watched by nobody against 20 live viewers,
 * and the server's memory while one viewer has stopped reading. Viewers are real WebSocket
 * clients on loopback, in this process.
 */
import type { Socket } from 'node:net';
import WebSocket from 'ws';

const FLOOD_COMMAND = "head -c 20000000 /dev/zero | tr '\\0' x | fold -w 99";
const FLOOD_RUNS = 3;
const VIEWERS = 20;
/** What one stalled viewer may add to the server's memory: its 2 MiB send bound, the 4 MiB
 *  of output kept for resumes, and room for the allocator's own slack. */
export const STALLED_VIEWER_BOUND_MIB = 32;

export interface BenchServer {
  readonly url: string;
  readonly token: string;
  readonly child: { readonly pid?: number | undefined };
}

export interface LiveBenchTools<S extends BenchServer> {
  startServer(flags?: readonly string[]): Promise<S>;
  stopServer(server: S): Promise<void>;
  call(server: S, agent: string, command: string): Promise<string>;
  report(name: string, ratio: number, target: number, detail: string): boolean;
  rssKiB(pid: number): number;
  sleep(ms: number): Promise<unknown>;
  median(values: number[]): number;
  timed(action: () => Promise<unknown>): Promise<number>;
}

interface Viewer {
  readonly socket: WebSocket;
  bytes: number;
}

async function sessionId(server: BenchServer, agent: string): Promise<string> {
  const response = await fetch(`${server.url}/api/sessions`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  const sessions = (await response.json()) as { id: string; agent: string; state: string }[];
  const found = sessions.find((s) => s.agent === agent && s.state !== 'exited');
  if (!found) throw new Error(`no session for ${agent}`);
  return found.id;
}

async function connectViewer(server: BenchServer, id: string): Promise<Viewer> {
  const socket = new WebSocket(`${server.url.replace('http', 'ws')}/api/sessions/${id}/live`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  const viewer: Viewer = { socket, bytes: 0 };
  socket.on('message', (data: Buffer, isBinary) => {
    if (isBinary) viewer.bytes += data.length;
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return viewer;
}

export async function liveBenchmarks<S extends BenchServer>(
  tools: LiveBenchTools<S>,
): Promise<boolean[]> {
  const results: boolean[] = [];
  const server = await tools.startServer();
  try {
    // 1. 20 MB with nobody watching, then with 20 viewers (separate shells, same server).
    await tools.call(server, 'bench-flood-alone', 'true');
    const alone: number[] = [];
    for (let i = 0; i < FLOOD_RUNS; i++) {
      alone.push(await tools.timed(() => tools.call(server, 'bench-flood-alone', FLOOD_COMMAND)));
    }
    await tools.call(server, 'bench-flood-watched', 'true');
    const id = await sessionId(server, 'bench-flood-watched');
    const viewers = await Promise.all(
      Array.from({ length: VIEWERS }, () => connectViewer(server, id)),
    );
    const watched: number[] = [];
    for (let i = 0; i < FLOOD_RUNS; i++) {
      watched.push(
        await tools.timed(() => tools.call(server, 'bench-flood-watched', FLOOD_COMMAND)),
      );
    }
    await tools.sleep(500);
    const streamed = viewers.reduce((sum, viewer) => sum + viewer.bytes, 0);
    for (const viewer of viewers) viewer.socket.close();
    const ratio = tools.median(watched) / tools.median(alone);
    results.push(
      tools.report(
        `20 MB printed with ${VIEWERS} live viewers vs none`,
        ratio,
        1.3,
        `(median ${tools.median(watched).toFixed(0)} ms vs ${tools.median(alone).toFixed(0)} ms; ` +
          `${(streamed / VIEWERS / 1024 / 1024).toFixed(1)} MiB per viewer streamed)`,
      ),
    );

    // 2. Memory with one viewer that stopped reading, over three 20 MB floods.
    await tools.call(server, 'bench-stalled', 'true');
    const stalledId = await sessionId(server, 'bench-stalled');
    await tools.sleep(1500);
    const pid = server.child.pid as number;
    const before = tools.rssKiB(pid);
    const stalled = await connectViewer(server, stalledId);
    (stalled.socket as unknown as { _socket: Socket })._socket.pause();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, tools.rssKiB(pid));
    }, 20);
    for (let i = 0; i < FLOOD_RUNS; i++) await tools.call(server, 'bench-stalled', FLOOD_COMMAND);
    await tools.sleep(1500);
    clearInterval(sampler);
    const after = tools.rssKiB(pid);
    stalled.socket.terminate();
    const grewMiB = (after - before) / 1024;
    const peakMiB = (peak - before) / 1024;
    results.push(
      tools.report(
        'server memory with one stalled viewer (3 x 20 MB)',
        Math.max(peakMiB, 0) / STALLED_VIEWER_BOUND_MIB,
        1,
        `(RSS +${grewMiB.toFixed(1)} MiB after, +${peakMiB.toFixed(1)} MiB at peak, against ${STALLED_VIEWER_BOUND_MIB} MiB)`,
      ),
    );
  } finally {
    await tools.stopServer(server);
  }
  return results;
}
