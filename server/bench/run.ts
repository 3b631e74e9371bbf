/**
 * `npm run bench`: jumpseat's speed and memory as ratios against baselines measured in the
 * same run on the same machine (absolute figures are printed too, for context only).
 * Starts the real server as a child process on loopback and drives it over HTTP.
 * `--shells N` lowers the many-shells step's 1,000 shells (scale-bench.ts); `--hosts N` and
 * `--host-shells N` size the joined hosts' step (hosts-bench.ts); `--only NAME,…` runs only
 * the named steps (see STEPS).
 */
import * as nodePty from 'node-pty';
import { locatePwsh, PWSH_MISSING_HINT } from '../src/pty/pwsh-executable.ts';
import {
  call,
  interleavedTimings,
  median,
  report,
  type Server,
  settledRssKiB,
  spawnAndWait,
  startServer,
  stopServer,
  timings,
} from './bench-server.ts';
import { cpuPerCall, throughputBenchmark } from './call-cost-bench.ts';
import { churnBenchmarks } from './churn-bench.ts';
import { cliBenchmarks } from './cli-bench.ts';
import { hostileOutputBenchmarks } from './hostile-output-bench.ts';
import { hostsBenchmarks } from './hosts-bench.ts';
import { liveBenchmarks } from './live-bench.ts';
import { replicasBenchmarks } from './replicas-bench.ts';
import { sandboxBenchmarks } from './sandbox-bench.ts';
import { scaleBenchmarks, shellsFromArgv } from './scale-bench.ts';
import { timeoutBenchmarks } from './timeout-bench.ts';

/**
 * The trivial call and its baseline are timed in alternating blocks (see interleavedTimings):
 * 200 of each.
 */
const TRUE_ROUNDS = 10;
const TRUE_BLOCK = 20;
/**
 * Calls before the timed ones: a call's round trip as a running server answers it, once V8
 * has optimised the path (over the first thousand calls or so; see call-cost-bench.ts).
 */
const TRUE_WARM_CALLS = 1000;
/** Runs of the million lines through the tool, each followed by one on the raw PTY. */
const SEQ_RUNS = 5;
const SEQ_COMMAND = 'seq 1 1000000';
const IDLE_SHELLS = 50;
/** The bound (22.6) on a million lines through the tool against a raw PTY. */
const SEQ_RATIO_TARGET = 1.2;
/** A raw run of SEQ_COMMAND takes about half a second; this long means it never will. */
const RAW_SEQ_LIMIT_MS = 60_000;
/** pwsh starts slowly (about a second), so its figures use fewer runs. */
const PWSH_NULL_CALLS = 50;
const PWSH_SPAWN_RUNS = 7;
const PWSH_NEW_SHELLS = 5;

function spawnBashTrue(): Promise<void> {
  return spawnAndWait('bash', ['--noprofile', '--norc', '-c', 'true']);
}

/** A persistent raw bash on node-pty, the baseline of the million lines. */
interface RawPty {
  /** Runs SEQ_COMMAND: writes it, reads until a sentinel line. */
  seq(): Promise<void>;
  close(): void;
}

function rawPty(): RawPty {
  const pty = nodePty.spawn('bash', ['--noprofile', '--norc'], {
    cols: 120,
    rows: 40,
    env: { ...process.env, PS1: '' } as Record<string, string>,
  });
  let buffer = '';
  let done: (() => void) | null = null;
  pty.onData((data) => {
    buffer += data;
    if (buffer.length > 64) buffer = buffer.slice(-64);
    if (done && buffer.includes('RAW-DONE-7')) done();
  });
  const seq = () =>
    new Promise<void>((resolve, reject) => {
      buffer = '';
      // Bounded: a raw bash that never answers fails the step by name, never hangs the run.
      const giveUp = setTimeout(() => {
        done = null;
        reject(
          new Error(`raw node-pty bash did not finish ${SEQ_COMMAND} in ${RAW_SEQ_LIMIT_MS} ms`),
        );
      }, RAW_SEQ_LIMIT_MS);
      done = () => {
        clearTimeout(giveUp);
        done = null;
        resolve();
      };
      pty.write(`${SEQ_COMMAND}; echo RAW-DONE-$((3+4))\r`);
    });
  return { seq, close: () => pty.kill() };
}

/**
 * The point of a persistent pwsh is skipping its slow start: a trivial call against starting
 * pwsh for it, and (for context) how long the first result on a new shell takes against that
 * same start. Skipped, saying why, when pwsh is not installed.
 */
async function pwshFigures(server: Server, results: boolean[]): Promise<void> {
  const pwsh = locatePwsh(process.env.JUMPSEAT_PWSH || undefined, process.env);
  if (pwsh === null) {
    console.log(`pwsh figures not measured: ${PWSH_MISSING_HINT}`);
    return;
  }
  await call(server, 'bench-pwsh', '$null', 'pwsh');
  const nullTimes = await timings(PWSH_NULL_CALLS, () =>
    call(server, 'bench-pwsh', '$null', 'pwsh'),
  );
  const spawnTimes = await timings(PWSH_SPAWN_RUNS, () =>
    spawnAndWait(pwsh, ['-NoProfile', '-Command', '$null']),
  );
  let shells = 0;
  const firstTimes = await timings(PWSH_NEW_SHELLS, () =>
    call(server, `bench-pwsh-new-${shells++}`, '$null', 'pwsh'),
  );
  const tool = median(nullTimes);
  const baseline = median(spawnTimes);
  const first = median(firstTimes);
  results.push(
    report(
      "pwsh('$null') over HTTP vs spawn pwsh -NoProfile -Command '$null'",
      tool / baseline,
      0.1,
      `(median ${tool.toFixed(2)} ms vs ${baseline.toFixed(0)} ms)`,
    ),
  );
  console.log(
    `time to first pwsh result on a new shell: median ${first.toFixed(0)} ms ` +
      `(${(first / baseline).toFixed(2)} x spawn pwsh -NoProfile -Command '$null'; for context, no target)`,
  );
}

/** Steps 1 and 2: a trivial call's round trip and CPU, the CLI, pwsh, a million lines. */
async function callFigures(): Promise<boolean[]> {
  const server = await startServer();
  const results: boolean[] = [];
  try {
    // 1. Round trip of a trivial call against starting a bash per call.
    for (let i = 0; i < TRUE_WARM_CALLS; i++) await call(server, 'bench-true', 'true');
    const [trueTimes, spawnTimes] = await interleavedTimings(TRUE_ROUNDS, TRUE_BLOCK, [
      () => call(server, 'bench-true', 'true'),
      spawnBashTrue,
    ]);
    const tool = median(trueTimes);
    const baseline = median(spawnTimes);
    results.push(
      report(
        'bash("true") over HTTP vs spawn bash -c true',
        tool / baseline,
        0.5,
        `(median ${tool.toFixed(2)} ms vs ${baseline.toFixed(2)} ms)`,
      ),
    );

    // 1a. The server's CPU per call.
    results.push(await cpuPerCall(server));

    // 1b. The CLI: one `jumpseat exec` from a cold node process.
    results.push(...(await cliBenchmarks(server)));

    // 1c. The same for pwsh, and the time to a new pwsh shell's first result.
    await pwshFigures(server, results);

    // 2. Throughput: a million lines through the tool against a raw PTY.
    await call(server, 'bench-seq', 'true');
    const raw = rawPty();
    let seqTimes: number[];
    let rawTimes: number[];
    try {
      await raw.seq();
      [seqTimes, rawTimes] = await interleavedTimings(SEQ_RUNS, 1, [
        () => call(server, 'bench-seq', SEQ_COMMAND),
        raw.seq,
      ]);
    } finally {
      raw.close();
    }
    const seqTool = median(seqTimes);
    const seqRaw = median(rawTimes);
    results.push(
      report(
        `${SEQ_COMMAND} through the tool vs raw node-pty bash`,
        seqTool / seqRaw,
        SEQ_RATIO_TARGET,
        `(median ${seqTool.toFixed(0)} ms vs ${seqRaw.toFixed(0)} ms)`,
      ),
    );
  } finally {
    await stopServer(server);
  }
  return results;
}

/** Memory per idle shell, on a fresh server so earlier bursts do not hide growth. */
async function idleMemory(): Promise<boolean[]> {
  const fresh = await startServer();
  try {
    await call(fresh, 'bench-idle-warm', 'true');
    const before = await settledRssKiB(fresh.child.pid as number);
    for (let i = 0; i < IDLE_SHELLS; i++) await call(fresh, `bench-idle-${i}`, 'true');
    const after = await settledRssKiB(fresh.child.pid as number);
    const perShellMiB = (after - before) / IDLE_SHELLS / 1024;
    return [
      report(
        `server memory per idle shell (${IDLE_SHELLS} shells)`,
        perShellMiB / 8,
        1,
        `(${perShellMiB.toFixed(2)} MiB per shell against 8 MiB; RSS ${(before / 1024).toFixed(0)} -> ${(after / 1024).toFixed(0)} MiB)`,
      ),
    ];
  } finally {
    await stopServer(fresh);
  }
}

/** Every step, in the order a full run takes them (`--only` names some of them). */
const STEPS: Record<string, () => Promise<boolean[]>> = {
  calls: callFigures,
  idle: idleMemory,
  timeout: timeoutBenchmarks,
  throughput: throughputBenchmark,
  churn: churnBenchmarks,
  sandbox: sandboxBenchmarks,
  live: liveBenchmarks,
  hostile: hostileOutputBenchmarks,
  scale: () => scaleBenchmarks(shellsFromArgv(process.argv)),
  hosts: () => hostsBenchmarks(process.argv),
  replicas: () => replicasBenchmarks(),
};

function chosenSteps(argv: readonly string[]): (() => Promise<boolean[]>)[] {
  const at = argv.indexOf('--only');
  if (at === -1) return Object.values(STEPS);
  return (argv[at + 1] ?? '').split(',').map((name) => {
    const step = STEPS[name];
    if (!step) throw new Error(`--only takes step names among ${Object.keys(STEPS).join(',')}`);
    return step;
  });
}

async function main(): Promise<void> {
  const results: boolean[] = [];
  for (const step of chosenSteps(process.argv)) results.push(...(await step()));
  console.log(`${results.filter(Boolean).length} of ${results.length} figures within target`);
}

await main();
