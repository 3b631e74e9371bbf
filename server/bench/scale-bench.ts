/**
 * What many idle shells cost when shells end (issue 22.5): a server with N live shells (1,000
 * by default, `--shells N` to lower), then the time `DELETE /api/sessions/:id` takes to end
 * one shell with the others alive, against the same on a server with that one shell only,
 * and the time SIGTERM takes to stop the server, against the 10 s the issue allows, with
 * every call in flight answered 503 SHUTTING_DOWN and every shell recorded closed. Before
 * ending a shell cost its own processes, both grew with every process on the host.
 */
import {
  firstCall,
  median,
  removeRun,
  report,
  type Server,
  sleep,
  startServer,
  stopServer,
  timed,
} from './bench-server.ts';

export const DEFAULT_SHELLS = 1000;
/** Shells started at once: enough to fill the server quickly, few enough not to time out. */
const START_CONCURRENCY = 8;
/** Shell ends measured (one after another, each a different shell). */
const END_RUNS = 5;
/** The bound on a graceful stop with 1,000 live shells. */
const SHUTDOWN_TARGET_MS = 10_000;
/** Ending one shell among many may cost at most this much more than ending it alone. */
const END_RATIO_TARGET = 2;
/** Shells in a call (`sleep`) at the stop: each call must be answered 503 SHUTTING_DOWN. */
const BUSY_SHELLS = 100;
/** Spacing of the looks for every busy shell's call to be running. */
const BUSY_POLL_MS = 100;
/** A stop that has not exited by then is reported missed and killed. */
const SHUTDOWN_GIVE_UP_MS = 120_000;
/**
 * Shells run without a network namespace of their own: one slirp4netns per shell would double
 * the processes, and this figure is about the engine's cost per shell.
 */
const FLAGS = ['--network', 'off'];

/** `--shells N` from the command line, else the default. */
export function shellsFromArgv(argv: readonly string[]): number {
  const at = argv.indexOf('--shells');
  const value = at === -1 ? DEFAULT_SHELLS : Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error('--shells takes a positive integer');
  return value;
}

async function startShells(server: Server, prefix: string, count: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) await firstCall(server, `${prefix}-${i}`);
  };
  await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, count) }, worker));
}

async function sessionIds(server: Server, prefix: string): Promise<string[]> {
  const response = await fetch(`${server.url}/api/sessions`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  const sessions = (await response.json()) as { id: string; agent: string | null }[];
  return sessions.filter((s) => s.agent?.startsWith(`${prefix}-`)).map((s) => s.id);
}

async function endShell(server: Server, id: string): Promise<void> {
  const response = await fetch(`${server.url}/api/sessions/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${server.token}` },
  });
  if (response.status !== 204) throw new Error(`ending a shell: HTTP ${response.status}`);
}

/** Median time to end one shell each of `END_RUNS` times, `others` shells staying alive. */
async function endTimes(others: number): Promise<number> {
  const server = await startServer(FLAGS);
  try {
    await startShells(server, 'alive', others);
    await startShells(server, 'end', END_RUNS);
    const ids = await sessionIds(server, 'end');
    const times: number[] = [];
    for (const id of ids) times.push(await timed(() => endShell(server, id)));
    return median(times);
  } finally {
    await stopServer(server);
  }
}

interface Stop {
  readonly ms: number;
  /** The server's exit code; null when it was killed for taking too long. */
  readonly code: number | null;
  /** Calls in flight at the stop not answered `503 SHUTTING_DOWN`. */
  readonly misanswered: number;
  /** Shells the next run of the data dir finds recorded as anything but `closed`. */
  readonly notClosed: number;
}

/** A call's HTTP status and error code, however it is answered. */
async function callReply(server: Server, agent: string, command: string): Promise<string> {
  const response = await fetch(`${server.url}/api/agents/${agent}/bash`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command }),
  }).catch((error: Error) => error);
  if (response instanceof Error) return response.message;
  const body = (await response.json().catch(() => ({}))) as { error?: { code?: string } };
  return `${response.status} ${body.error?.code ?? ''}`;
}

async function runningCount(server: Server): Promise<number> {
  const response = await fetch(`${server.url}/api/sessions`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  const sessions = (await response.json()) as { state: string }[];
  return sessions.filter((s) => s.state === 'running').length;
}

/** How the shells of a stopped server's data dir were recorded, seen by its next run. */
async function notClosedAfter(root: string, prefix: string): Promise<number> {
  const again = await startServer(FLAGS, root);
  try {
    const response = await fetch(`${again.url}/api/sessions?state=all`, {
      headers: { authorization: `Bearer ${again.token}` },
    });
    const sessions = (await response.json()) as {
      agent: string | null;
      ending: { kind: string } | null;
    }[];
    return sessions.filter((s) => s.agent?.startsWith(`${prefix}-`) && s.ending?.kind !== 'closed')
      .length;
  } finally {
    await stopServer(again);
  }
}

/**
 * SIGTERM with `shells` live shells, BUSY_SHELLS of them in a call: the time to exit, the
 * exit code, how the calls in flight were answered and how the shells were recorded.
 */
async function shutdown(shells: number): Promise<Stop> {
  const server = await startServer(FLAGS);
  await startShells(server, 'stop', shells);
  const busy = Math.min(BUSY_SHELLS, shells);
  const replies = Array.from({ length: busy }, (_, i) =>
    callReply(server, `stop-${i}`, 'sleep 1003'),
  );
  while ((await runningCount(server)) < busy) await sleep(BUSY_POLL_MS);
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
  const start = performance.now();
  server.child.kill('SIGTERM');
  const giveUp = setTimeout(() => server.child.kill('SIGKILL'), SHUTDOWN_GIVE_UP_MS);
  const code = await exited;
  const ms = performance.now() - start;
  clearTimeout(giveUp);
  const answers = await Promise.all(replies);
  const misanswered = answers.filter((answer) => answer !== '503 SHUTTING_DOWN').length;
  const notClosed = await notClosedAfter(server.root, 'stop');
  await removeRun(server.root);
  return { ms, code, misanswered, notClosed };
}

export async function scaleBenchmarks(shells = DEFAULT_SHELLS): Promise<boolean[]> {
  const alone = await endTimes(0);
  const among = await endTimes(shells);
  const stop = await shutdown(shells);
  const ended = report(
    `one shell's end with ${shells} other shells alive vs alone`,
    among / alone,
    END_RATIO_TARGET,
    `(median ${among.toFixed(0)} ms vs ${alone.toFixed(0)} ms)`,
  );
  const stopped = report(
    `SIGTERM with ${shells} live shells to exit`,
    stop.ms / SHUTDOWN_TARGET_MS,
    1,
    `(${(stop.ms / 1000).toFixed(2)} s against ${SHUTDOWN_TARGET_MS / 1000} s, exit code ${stop.code ?? 'none: killed'}; ` +
      `${stop.misanswered} of ${Math.min(BUSY_SHELLS, shells)} calls in flight not answered 503 SHUTTING_DOWN, ` +
      `${stop.notClosed} of ${shells} shells not recorded closed)`,
  );
  // A stop that exits non-zero (it gave up, or failed), leaves a call unanswered or a shell
  // not recorded closed misses whatever its time.
  return [ended, stopped && stop.code === 0 && stop.misanswered === 0 && stop.notClosed === 0];
}

// `node --import tsx server/bench/scale-bench.ts [--shells N]` runs these figures alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  await scaleBenchmarks(shellsFromArgv(process.argv));
}
