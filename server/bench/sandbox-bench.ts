/**
 * What the sandbox costs: a trivial call's round trip and the time to a new shell's first
 * result, on a server with `--sandbox bwrap` against one with `--sandbox off`, measured in
 * the same run. Skipped, saying why, where bubblewrap cannot run.
 */
import { findBwrap, probeBwrap } from '../src/launch/choose-launcher.ts';
import { call, median, report, startServer, stopServer, timings } from './bench-server.ts';

const CALLS = 200;
const NEW_SHELLS = 30;
/** The targets: at most 1.1x per call, at most 50 ms more per new shell. */
const CALL_RATIO_TARGET = 1.1;
const NEW_SHELL_EXTRA_MS = 50;

interface Figures {
  readonly call: number;
  readonly newShell: number;
}

async function measure(sandbox: 'bwrap' | 'off'): Promise<Figures> {
  const server = await startServer(['--sandbox', sandbox]);
  try {
    await call(server, 'bench-sandbox', 'true');
    const calls = await timings(CALLS, () => call(server, 'bench-sandbox', 'true'));
    let shells = 0;
    const firsts = await timings(NEW_SHELLS, () => call(server, `bench-new-${shells++}`, 'true'));
    return { call: median(calls), newShell: median(firsts) };
  } finally {
    await stopServer(server);
  }
}

export async function sandboxBenchmarks(): Promise<boolean[]> {
  const bwrap = findBwrap(process.env);
  const why = bwrap === null ? 'bubblewrap is not installed' : probeBwrap(bwrap, 'on');
  if (why !== null) {
    console.log(`sandbox figures not measured: ${why}`);
    return [];
  }
  // Alternated, so drift on a busy machine does not favour one side.
  const off = await measure('off');
  const sandboxed = await measure('bwrap');
  const offAgain = await measure('off');
  const baseline: Figures = {
    call: (off.call + offAgain.call) / 2,
    newShell: (off.newShell + offAgain.newShell) / 2,
  };
  const extra = sandboxed.newShell - baseline.newShell;
  return [
    report(
      'bash("true") sandboxed vs unsandboxed',
      sandboxed.call / baseline.call,
      CALL_RATIO_TARGET,
      `(median ${sandboxed.call.toFixed(2)} ms vs ${baseline.call.toFixed(2)} ms)`,
    ),
    report(
      'first result on a new shell, sandboxed vs unsandboxed (extra ms / 50 ms)',
      Math.max(0, extra) / NEW_SHELL_EXTRA_MS,
      1,
      `(median ${sandboxed.newShell.toFixed(1)} ms vs ${baseline.newShell.toFixed(1)} ms: ${extra >= 0 ? '+' : ''}${extra.toFixed(1)} ms)`,
    ),
  ];
}
