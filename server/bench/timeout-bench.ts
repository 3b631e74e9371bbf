/**
 * How long after its deadline a timed-out call answers, its process tree ended: on a quiet
 * machine, and with two CPU hogs loading both cores (issue 22.6), for a job that sleeps, a
 * busy loop in the shell itself, and a job that ignores SIGTERM. The bound holds for every
 * call, so the loaded figure is the worst one.
 */
import {
  call,
  median,
  report,
  type Server,
  startServer,
  stopServer,
  timings,
} from './bench-server.ts';
import { CpuHogs } from './cpu-hogs.ts';

/** A short per-call deadline (the server runs with it for bash). */
const TIMEOUT_MS = 1000;
const QUIET_RUNS = 5;
/** Runs of each command under load. */
const LOADED_RUNS = 3;
/** The bound: the tree is ended within half a second of the deadline. */
const TIMEOUT_LIMIT_MS = 500;
/** What outlives a polite stop: a sleeping job, the shell itself busy, TERM ignored. */
const STUBBORN_COMMANDS = [
  'sleep 30 & sleep 30',
  'while :; do :; done',
  `bash -c "trap '' TERM; sleep 30"`,
];

async function overshoots(server: Server, command: string, runs: number): Promise<number[]> {
  const elapsed = await timings(runs, () => call(server, 'bench-timeout', command));
  return elapsed.map((ms) => ms - TIMEOUT_MS);
}

export async function timeoutBenchmarks(): Promise<boolean[]> {
  const server = await startServer(['--timeout-ms', String(TIMEOUT_MS)]);
  let quiet: number[];
  const loaded: number[] = [];
  try {
    await call(server, 'bench-timeout', 'true');
    quiet = await overshoots(server, 'sleep 30 & sleep 30', QUIET_RUNS);
    const hogs = new CpuHogs();
    try {
      for (const command of STUBBORN_COMMANDS) {
        loaded.push(...(await overshoots(server, command, LOADED_RUNS)));
      }
    } finally {
      await hogs.stop();
    }
  } finally {
    await stopServer(server);
  }
  const typical = median(quiet);
  const worst = Math.max(...loaded);
  return [
    report(
      'timeout answered after the deadline, tree ended',
      typical / TIMEOUT_LIMIT_MS,
      1,
      `(median ${typical.toFixed(0)} ms past a ${TIMEOUT_MS} ms deadline against ${TIMEOUT_LIMIT_MS} ms)`,
    ),
    report(
      'timeout answered after the deadline with two CPU hogs, worst of all',
      worst / TIMEOUT_LIMIT_MS,
      1,
      `(worst ${worst.toFixed(0)} ms, median ${median(loaded).toFixed(0)} ms past a ${TIMEOUT_MS} ms ` +
        `deadline against ${TIMEOUT_LIMIT_MS} ms; ${LOADED_RUNS} runs each of: ${STUBBORN_COMMANDS.join(' | ')})`,
    ),
  ];
}
