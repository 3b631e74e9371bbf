/**
 * `npm run bench`: jumpseat's speed and memory as ratios against baselines measured in the
 * same run on the same machine (absolute figures are printed too, for context only).
 * Starts the real server as a child process on loopback and drives it over HTTP.
 */
import * as nodePty from 'node-pty';
import { locatePwsh, PWSH_MISSING_HINT } from '../src/pty/pwsh-executable.ts';
import {
  call,
  median,
  report,
  rssKiB,
  type Server,
  sleep,
  spawnAndWait,
  startServer,
  stopServer,
  timed,
  timings,
} from './bench-server.ts';
import { churnBenchmarks } from './churn-bench.ts';
import { cliBenchmarks } from './cli-bench.ts';
import { liveBenchmarks } from './live-bench.ts';
import { sandboxBenchmarks } from './sandbox-bench.ts';

const TRUE_CALLS = 200;
const SPAWN_RUNS = 200;
const SEQ_RUNS = 5;
const SEQ_COMMAND = 'seq 1 1000000';
const IDLE_SHELLS = 50;
/** A short per-call deadline for the timeout figure (the server runs with it for bash). */
const TIMEOUT_MS = 1000;
const TIMEOUT_RUNS = 5;
/** The bound: the tree is ended within half a second of the deadline. */
const TIMEOUT_LIMIT_MS = 500;
/** Time for the server to settle (GC, lazy allocations) before a memory reading. */
const SETTLE_MS = 1500;
/** pwsh starts slowly (about a second), so its figures use fewer runs. */
const PWSH_NULL_CALLS = 50;
const PWSH_SPAWN_RUNS = 7;
const PWSH_NEW_SHELLS = 5;

function spawnBashTrue(): Promise<void> {
  return spawnAndWait('bash', ['--noprofile', '--norc', '-c', 'true']);
}

/** A persistent raw bash on node-pty: write the command, read until a sentinel line. */
async function rawPtySeq(): Promise<number[]> {
  const pty = nodePty.spawn('bash', ['--noprofile', '--norc'], {
    cols: 120,
    rows: 40,
    env: { ...process.env, PS1: '' } as Record<string, string>,
  });
  const times: number[] = [];
  let buffer = '';
  let done: (() => void) | null = null;
  pty.onData((data) => {
    buffer += data;
    if (buffer.length > 64) buffer = buffer.slice(-64);
    if (done && buffer.includes('RAW-DONE-7')) done();
  });
  for (let i = 0; i < SEQ_RUNS; i++) {
    buffer = '';
    times.push(
      await timed(
        () =>
          new Promise<void>((resolve) => {
            done = () => {
              done = null;
              resolve();
            };
            pty.write(`${SEQ_COMMAND}; echo RAW-DONE-$((3+4))\r`);
          }),
      ),
    );
  }
  pty.kill();
  return times;
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

async function main(): Promise<void> {
  const server = await startServer();
  const results: boolean[] = [];
  try {
    // 1. Round trip of a trivial call against starting a bash per call.
    await call(server, 'bench-true', 'true');
    const trueTimes = await timings(TRUE_CALLS, () => call(server, 'bench-true', 'true'));
    const spawnTimes = await timings(SPAWN_RUNS, spawnBashTrue);
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

    // 1a. The CLI: one `jumpseat exec` from a cold node process.
    results.push(...(await cliBenchmarks(server)));

    // 1b. The same for pwsh, and the time to a new pwsh shell's first result.
    await pwshFigures(server, results);

    // 2. Throughput: a million lines through the tool against a raw PTY.
    await call(server, 'bench-seq', 'true');
    const seqTimes = await timings(SEQ_RUNS, () => call(server, 'bench-seq', SEQ_COMMAND));
    const rawTimes = await rawPtySeq();
    const seqTool = median(seqTimes);
    const seqRaw = median(rawTimes);
    results.push(
      report(
        `${SEQ_COMMAND} through the tool vs raw node-pty bash`,
        seqTool / seqRaw,
        1.5,
        `(median ${seqTool.toFixed(0)} ms vs ${seqRaw.toFixed(0)} ms)`,
      ),
    );

    // 3. How long after its deadline a timed-out call answers, its process tree ended.
    const short = await startServer(['--timeout-ms', String(TIMEOUT_MS)]);
    let overshoots: number[];
    try {
      await call(short, 'bench-timeout', 'true');
      const elapsed = await timings(TIMEOUT_RUNS, () =>
        call(short, 'bench-timeout', 'sleep 30 & sleep 30'),
      );
      overshoots = elapsed.map((ms) => ms - TIMEOUT_MS);
    } finally {
      await stopServer(short);
    }
    const overshoot = median(overshoots);
    results.push(
      report(
        'timeout answered after the deadline, tree ended',
        overshoot / TIMEOUT_LIMIT_MS,
        1,
        `(median ${overshoot.toFixed(0)} ms past a ${TIMEOUT_MS} ms deadline against ${TIMEOUT_LIMIT_MS} ms)`,
      ),
    );

    // 4. Memory per idle shell, on a fresh server so earlier bursts do not hide growth.
    const fresh = await startServer();
    try {
      await call(fresh, 'bench-idle-warm', 'true');
      await sleep(SETTLE_MS);
      const before = rssKiB(fresh.child.pid as number);
      for (let i = 0; i < IDLE_SHELLS; i++) await call(fresh, `bench-idle-${i}`, 'true');
      await sleep(SETTLE_MS);
      const after = rssKiB(fresh.child.pid as number);
      const perShellMiB = (after - before) / IDLE_SHELLS / 1024;
      results.push(
        report(
          `server memory per idle shell (${IDLE_SHELLS} shells)`,
          perShellMiB / 8,
          1,
          `(${perShellMiB.toFixed(2)} MiB per shell against 8 MiB; RSS ${(before / 1024).toFixed(0)} -> ${(after / 1024).toFixed(0)} MiB)`,
        ),
      );
    } finally {
      await stopServer(fresh);
    }
  } finally {
    await stopServer(server);
  }
  results.push(...(await churnBenchmarks()));
  results.push(...(await sandboxBenchmarks()));
  results.push(...(await liveBenchmarks()));
  console.log(`${results.filter(Boolean).length} of ${results.length} figures within target`);
}

await main();
