/**
 * The live stream's cost: a shell printing 20 MB watched by nobody against 20 live viewers,
 * and the server's memory while one viewer has stopped reading. Viewers are real WebSocket
 * clients on loopback, in this process.
 */
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import {
  call,
  median,
  report,
  rssKiB,
  type Server,
  sleep,
  startServer,
  stopServer,
  timings,
} from './bench-server.ts';

const FLOOD_COMMAND = "head -c 20000000 /dev/zero | tr '\\0' x | fold -w 99";
const FLOOD_RUNS = 5;
const VIEWERS = 20;
/** What one stalled viewer may add to the server's memory: its 2 MiB send bound, the 4 MiB
 *  of output kept for resumes, and room for the allocator's own slack. */
export const STALLED_VIEWER_BOUND_MIB = 32;

interface Viewer {
  readonly socket: WebSocket;
  bytes: number;
}

async function sessionId(server: Server, agent: string): Promise<string> {
  const response = await fetch(`${server.url}/api/sessions`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  const sessions = (await response.json()) as { id: string; agent: string; state: string }[];
  const found = sessions.find((s) => s.agent === agent && s.state !== 'exited');
  if (!found) throw new Error(`no session for ${agent}`);
  return found.id;
}

async function connectViewer(server: Server, id: string): Promise<Viewer> {
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

export async function liveBenchmarks(): Promise<boolean[]> {
  const results: boolean[] = [];
  const server = await startServer();
  try {
    // 1. 20 MB in a shell nobody watches and in one 20 viewers watch (same server), the two
    //    runs taking turns so that a drift in the machine's speed hits both alike.
    await call(server, 'bench-flood-alone', 'true');
    await call(server, 'bench-flood-watched', 'true');
    const id = await sessionId(server, 'bench-flood-watched');
    const viewers = await Promise.all(
      Array.from({ length: VIEWERS }, () => connectViewer(server, id)),
    );
    const alone: number[] = [];
    const watched: number[] = [];
    for (let run = 0; run < FLOOD_RUNS; run++) {
      alone.push(...(await timings(1, () => call(server, 'bench-flood-alone', FLOOD_COMMAND))));
      watched.push(...(await timings(1, () => call(server, 'bench-flood-watched', FLOOD_COMMAND))));
    }
    await sleep(500);
    const streamed = viewers.reduce((sum, viewer) => sum + viewer.bytes, 0);
    for (const viewer of viewers) viewer.socket.close();
    const ratio = median(watched) / median(alone);
    results.push(
      report(
        `20 MB printed with ${VIEWERS} live viewers vs none`,
        ratio,
        1.3,
        `(median ${median(watched).toFixed(0)} ms vs ${median(alone).toFixed(0)} ms; ` +
          `${(streamed / VIEWERS / 1024 / 1024).toFixed(1)} MiB per viewer streamed)`,
      ),
    );

    // 2. Memory with one viewer that stopped reading, over FLOOD_RUNS 20 MB floods.
    await call(server, 'bench-stalled', 'true');
    const stalledId = await sessionId(server, 'bench-stalled');
    await sleep(1500);
    const pid = server.child.pid as number;
    const before = rssKiB(pid);
    const stalled = await connectViewer(server, stalledId);
    (stalled.socket as unknown as { _socket: Socket })._socket.pause();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssKiB(pid));
    }, 20);
    for (let i = 0; i < FLOOD_RUNS; i++) await call(server, 'bench-stalled', FLOOD_COMMAND);
    await sleep(1500);
    clearInterval(sampler);
    const after = rssKiB(pid);
    stalled.socket.terminate();
    const grewMiB = (after - before) / 1024;
    const peakMiB = (peak - before) / 1024;
    results.push(
      report(
        `server memory with one stalled viewer (${FLOOD_RUNS} x 20 MB)`,
        Math.max(peakMiB, 0) / STALLED_VIEWER_BOUND_MIB,
        1,
        `(RSS +${grewMiB.toFixed(1)} MiB after, +${peakMiB.toFixed(1)} MiB at peak, against ${STALLED_VIEWER_BOUND_MIB} MiB)`,
      ),
    );
  } finally {
    await stopServer(server);
  }
  return results;
}
