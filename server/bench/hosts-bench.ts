/**
 * Across machines (issue 23.7): the same calls on a server that runs its shells itself and
 * through a control plane (`--local-shells off`) to a joined `jumpseat host`, in the same run:
 * `bash("true")` (target: at most 0.5 ms more, printed as the extra over 0.5 ms) and a million
 * lines (at most 1.2×); the embedded figures are measured before and after the joined host's
 * and averaged, as the sandbox step alternates, so drift favours neither. Then several hosts
 * with many idle shells each answer calls to random shells, a few at a time: p99 against
 * 250 ms. `--hosts N` and `--host-shells N` (per host) size that step (3 × 500 by default).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  call,
  firstCall,
  median,
  report,
  type Server,
  sleep,
  startServer,
  stopServer,
  timings,
} from './bench-server.ts';

const TRUE_CALLS = 200;
/**
 * Calls before the timed ones, on either side alike: both compare servers as they answer once
 * warm. A joined host's call runs code in two processes (the link's framing on each side),
 * which V8 optimises over the first thousand calls or so; timed cold, that warming weighed on
 * the joined host's median alone.
 */
const WARM_CALLS = 1000;
const SEQ_RUNS = 5;
const SEQ_COMMAND = 'seq 1 1000000';
const EXTRA_MS_TARGET = 0.5;
const SEQ_RATIO_TARGET = 1.2;
const P99_TARGET_MS = 250;
/** Calls measured on the many idle shells, and how many run at once. */
const SPREAD_CALLS = 600;
const SPREAD_CONCURRENCY = 8;
/** Shells started at once while filling the hosts. */
const START_CONCURRENCY = 4;
const JOIN_DEADLINE_MS = 120_000;

export interface HostChild {
  readonly child: ChildProcess;
  readonly dir: string;
}

function argValue(argv: readonly string[], flag: string, fallback: number): number {
  const at = argv.indexOf(flag);
  const value = at === -1 ? fallback : Number(argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${flag} takes a whole number`);
  return value;
}

async function api(server: Server, path: string, body?: object): Promise<unknown> {
  const response = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

/** A `jumpseat host` joined to `plane` under a new host token; resolves once connected. */
export async function startHost(
  plane: Server,
  name: string,
  maxShells: number,
): Promise<HostChild> {
  const { token } = (await api(plane, '/api/tokens', { role: 'host', name })) as { token: string };
  const dir = mkdtempSync(join(tmpdir(), `jumpseat-bench-${name}-`));
  mkdirSync(join(dir, 'workspace'));
  const child = spawn(
    process.execPath,
    [
      ...['--import', 'tsx', 'server/src/cli/bin.ts', 'host', '--join', plane.url],
      ...['--data-dir', join(dir, 'data'), '--workspace', join(dir, 'workspace')],
      ...['--max-shells', String(maxShells)],
    ],
    { env: { ...process.env, JUMPSEAT_TOKEN: token }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const deadline = Date.now() + JOIN_DEADLINE_MS;
  for (;;) {
    const hosts = (await api(plane, '/api/hosts')) as { name: string; state: string }[];
    if (hosts.some((host) => host.name === name && host.state === 'connected')) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${name} did not join`);
    await sleep(100);
  }
  return { child, dir };
}

export async function stopHost(host: HostChild): Promise<void> {
  if (host.child.exitCode === null) {
    const exited = new Promise((resolve) => host.child.once('exit', resolve));
    host.child.kill('SIGTERM');
    await exited;
  }
  rmSync(host.dir, { recursive: true, force: true });
}

/** Median `bash("true")` and `seq` times (ms) on a server's shells. */
async function figures(server: Server, prefix: string): Promise<{ trueMs: number; seqMs: number }> {
  for (let i = 0; i < WARM_CALLS; i++) await call(server, `${prefix}-true`, 'true');
  const trueMs = median(await timings(TRUE_CALLS, () => call(server, `${prefix}-true`, 'true')));
  await call(server, `${prefix}-seq`, 'true');
  const seqMs = median(await timings(SEQ_RUNS, () => call(server, `${prefix}-seq`, SEQ_COMMAND)));
  return { trueMs, seqMs };
}

/** `figures` on a server of its own that runs its shells itself. */
async function embeddedFigures(): Promise<{ trueMs: number; seqMs: number }> {
  const embedded = await startServer();
  try {
    return await figures(embedded, 'bench-embedded');
  } finally {
    await stopServer(embedded);
  }
}

/** Runs `work(i)` for i in 0..count-1, `width` at a time. */
async function pooled(count: number, width: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

export async function hostsBenchmarks(argv: readonly string[]): Promise<boolean[]> {
  const hostCount = argValue(argv, '--hosts', 3);
  const shellsPerHost = argValue(argv, '--host-shells', 500);
  const results: boolean[] = [];
  const before = await embeddedFigures();
  const plane = await startServer(['--local-shells', 'off']);
  const hosts: HostChild[] = [];
  try {
    hosts.push(await startHost(plane, 'bench-host-1', shellsPerHost + 10));
    const remote = await figures(plane, 'bench-remote');
    // Embedded again (the plane and its host idle meanwhile): the baseline is the mean of the
    // runs before and after, so the machine's drift favours neither side.
    const after = await embeddedFigures();
    const local = {
      trueMs: (before.trueMs + after.trueMs) / 2,
      seqMs: (before.seqMs + after.seqMs) / 2,
    };
    results.push(
      report(
        'bash("true") through a joined host: extra over embedded, against 0.5 ms',
        (remote.trueMs - local.trueMs) / EXTRA_MS_TARGET,
        1,
        `(median ${remote.trueMs.toFixed(2)} ms vs ${local.trueMs.toFixed(2)} ms embedded)`,
      ),
    );
    results.push(
      report(
        `${SEQ_COMMAND} through a joined host vs embedded`,
        remote.seqMs / local.seqMs,
        SEQ_RATIO_TARGET,
        `(median ${remote.seqMs.toFixed(0)} ms vs ${local.seqMs.toFixed(0)} ms)`,
      ),
    );
    for (let i = 2; i <= hostCount; i++) {
      hosts.push(await startHost(plane, `bench-host-${i}`, shellsPerHost + 10));
    }
    // Fill the hosts (placement spreads new shells to the least loaded), then call at random.
    const agents = hostCount * shellsPerHost;
    const filling = Date.now();
    await pooled(agents, START_CONCURRENCY, (i) => firstCall(plane, `bench-spread-${i}`));
    const fillSeconds = (Date.now() - filling) / 1000;
    const times: number[] = [];
    await pooled(SPREAD_CALLS, SPREAD_CONCURRENCY, async () => {
      const agent = `bench-spread-${Math.floor(Math.random() * agents)}`;
      const start = performance.now();
      await call(plane, agent, 'true');
      times.push(performance.now() - start);
    });
    times.sort((a, b) => a - b);
    const p99 = times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] as number;
    results.push(
      report(
        `calls to ${hostCount} hosts × ${shellsPerHost} idle shells: p99 against ${P99_TARGET_MS} ms`,
        p99 / P99_TARGET_MS,
        1,
        `(p99 ${p99.toFixed(1)} ms, median ${median(times).toFixed(1)} ms over ${SPREAD_CALLS} calls, ${SPREAD_CONCURRENCY} at once; the shells started in ${fillSeconds.toFixed(0)} s)`,
      ),
    );
  } finally {
    for (const host of hosts) await stopHost(host);
    await stopServer(plane);
  }
  return results;
}
