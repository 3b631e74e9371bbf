/**
 * What the sandbox costs: a trivial call's round trip and the time to a new shell's first
 * result, on a server with `--sandbox bwrap` against one with `--sandbox off`, measured in
 * the same run. Skipped, saying why, where bubblewrap cannot run.
 *
 * The new shells' figure is an agent's wait for a new shell on a server that has nothing else
 * to do: each comes a moment after the last one's first result, once the server has made
 * again what it keeps ready (spare workspaces and networks). Shells started back to back
 * share the CPU with that work; their figure is printed too, for context. As root, the new
 * shell is measured again among a thousand other workspaces' mounts (CROWD).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findBwrap, probeBwrap } from '../src/launch/choose-launcher.ts';
import {
  call,
  median,
  report,
  type Server,
  sleep,
  startServer,
  stopServer,
  timed,
  timings,
  workspaceOf,
} from './bench-server.ts';

const CALLS = 200;
const NEW_SHELLS = 30;
/** The moment between new shells: time to make again the spares the last one took. */
const NEW_SHELL_PAUSE_MS = 500;
/** The targets: at most 1.1x per call, at most 50 ms more per new shell. */
const CALL_RATIO_TARGET = 1.1;
const NEW_SHELL_EXTRA_MS = 50;
/**
 * Other workspaces' mounts beside the new shells of the crowded figure (as root): a server
 * with 1,000 agents under a quota has a file system mounted for each, and every sandbox's start
 * detaches them all from its copy of the mount table (foreign-mounts.ts). Small tmpfs stand in
 * for the agents' ext4: what costs is the number of mounts, not what is on them.
 */
const CROWD = 1000;

interface Figures {
  readonly call: number;
  readonly newShell: number;
  readonly backToBack: number;
}

async function measure(sandbox: 'bwrap' | 'off'): Promise<Figures> {
  const server = await startServer(['--sandbox', sandbox]);
  try {
    await call(server, 'bench-sandbox', 'true');
    const calls = await timings(CALLS, () => call(server, 'bench-sandbox', 'true'));
    const newShell = await newShellFirst(server, 'bench-new');
    let shells = 0;
    const bursts = await timings(NEW_SHELLS, () => call(server, `bench-burst-${shells++}`, 'true'));
    return { call: median(calls), newShell, backToBack: median(bursts) };
  } finally {
    await stopServer(server);
  }
}

/** The median first result of NEW_SHELLS new shells, each a moment after the last. */
async function newShellFirst(server: Server, prefix: string): Promise<number> {
  const firsts: number[] = [];
  for (let i = 0; i < NEW_SHELLS; i++) {
    await sleep(NEW_SHELL_PAUSE_MS);
    firsts.push(await timed(() => call(server, `${prefix}-${i}`, 'true')));
  }
  return median(firsts);
}

/** The sandboxed new shell's first result with CROWD other mounts under the workspace root. */
async function crowdedNewShell(): Promise<number> {
  const server = await startServer(['--sandbox', 'bwrap']);
  const mounted: string[] = [];
  try {
    await call(server, 'bench-crowd-warm', 'true');
    for (let i = 0; i < CROWD; i++) {
      const dir = join(workspaceOf(server.root), `bench-crowd-${i}`);
      mkdirSync(dir, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'bench-crowd', dir]);
      mounted.push(dir);
    }
    return await newShellFirst(server, 'bench-crowded');
  } finally {
    // Lazily: one the stopping server still uses goes once it lets go.
    for (const dir of mounted.reverse()) execFileSync('umount', ['--lazy', dir]);
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
    backToBack: (off.backToBack + offAgain.backToBack) / 2,
  };
  const extra = sandboxed.newShell - baseline.newShell;
  const crowded = process.getuid?.() === 0 ? await crowdedNewShell() : null;
  if (crowded === null) console.log(`new shell among ${CROWD} workspaces not measured: needs root`);
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
      `(median ${sandboxed.newShell.toFixed(1)} ms vs ${baseline.newShell.toFixed(1)} ms: ${signed(extra)} ms; ` +
        `back to back ${sandboxed.backToBack.toFixed(1)} ms vs ${baseline.backToBack.toFixed(1)} ms: ` +
        `${signed(sandboxed.backToBack - baseline.backToBack)} ms)`,
    ),
    ...(crowded === null
      ? []
      : [
          report(
            `first result on a new shell among ${CROWD} other workspaces' mounts, sandboxed vs unsandboxed (extra ms / 50 ms)`,
            Math.max(0, crowded - baseline.newShell) / NEW_SHELL_EXTRA_MS,
            1,
            `(median ${crowded.toFixed(1)} ms vs ${baseline.newShell.toFixed(1)} ms: ${signed(crowded - baseline.newShell)} ms; ` +
              `${signed(crowded - sandboxed.newShell)} ms over the sandboxed new shell without them)`,
          ),
        ]),
  ];
}

function signed(ms: number): string {
  return `${ms >= 0 ? '+' : ''}${ms.toFixed(1)}`;
}
