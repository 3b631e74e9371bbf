/**
 * Across machines (issue 23.7): the same calls on a server that runs its shells itself and
 * through a control plane (`--local-shells off`) to a joined `jumpseat host`, in the same run:
 * `bash("true")` (target: at most 0.5 ms more, printed as the extra over 0.5 ms) and a million
 * lines (at most 1.2×); the embedded server runs beside the control plane and its host, and
 * the two are timed in alternating blocks, so the machine's drift favours neither. Then
 * several hosts with many idle shells each answer calls to random shells, a few at a time:
 * p99 against 250 ms. `--hosts N` and `--host-shells N` (per host) size that step (3 × 500 by default).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  call,
  firstCall,
  interleavedTimings,
  median,
  report,
  type Server,
  sleep,
  startServer,
  stopServer,
} from './bench-server.ts';

/** 500 calls on either side, in alternating blocks of 20. */
const TRUE_ROUNDS = 25;
const TRUE_BLOCK = 20;
/**
 * Calls before the timed ones, on either side alike: both compare servers as they answer once
 * warm. A joined host's call runs code in two processes (the link's framing on each side),
 * which V8 optimises over the first thousands of calls; timed cold, that warming weighed on
 * the joined host's median alone (after 1,000 calls the next 1,000 still took ~0.05 ms more
 * than those after them, here).
 */
const WARM_CALLS = 2000;
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

interface Figures {
  readonly trueMs: number;
  readonly seqMs: number;
}

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

/**
 * Median `bash("true")` and `seq` times (ms) through the joined host and on the embedded
 * server, both warm, timed in alternating blocks (see interleavedTimings): the two servers
 * run side by side, and whichever is not being called is idle.
 */
async function sideBySide(
  remote: Server,
  embedded: Server,
): Promise<{ remote: Figures; embedded: Figures }> {
  for (const [server, prefix] of [
    [remote, 'bench-remote'],
    [embedded, 'bench-embedded'],
  ] as const) {
    for (let i = 0; i < WARM_CALLS; i++) await call(server, `${prefix}-true`, 'true');
    await call(server, `${prefix}-seq`, 'true');
  }
  const [remoteTrue, embeddedTrue] = await interleavedTimings(TRUE_ROUNDS, TRUE_BLOCK, [
    () => call(remote, 'bench-remote-true', 'true'),
    () => call(embedded, 'bench-embedded-true', 'true'),
  ]);
  const [remoteSeq, embeddedSeq] = await interleavedTimings(SEQ_RUNS, 1, [
    () => call(remote, 'bench-remote-seq', SEQ_COMMAND),
    () => call(embedded, 'bench-embedded-seq', SEQ_COMMAND),
  ]);
  return {
    remote: { trueMs: median(remoteTrue), seqMs: median(remoteSeq) },
    embedded: { trueMs: median(embeddedTrue), seqMs: median(embeddedSeq) },
  };
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
  const plane = await startServer(['--local-shells', 'off']);
  const hosts: HostChild[] = [];
  try {
    hosts.push(await startHost(plane, 'bench-host-1', shellsPerHost + 10));
    const embeddedServer = await startServer();
    let remote: Figures;
    let local: Figures;
    try {
      ({ remote, embedded: local } = await sideBySide(plane, embeddedServer));
    } finally {
      await stopServer(embeddedServer);
    }
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
