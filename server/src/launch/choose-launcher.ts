/**
 * Picks where shells run from `--sandbox`: `bwrap` requires bubblewrap to work here (the
 * server refuses to start otherwise), `auto` uses it wherever it works and else runs shells
 * unsandboxed with a one-line warning, `off` never sandboxes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { delimiter, isAbsolute, join } from 'node:path';
import { isExecutableFile } from '../pty/pwsh-executable.ts';
import { bwrapLauncher, isolationArgs } from './bwrap-launcher.ts';
import { Cgroups } from './cgroups.ts';
import { directLauncher } from './direct-launcher.ts';
import type { SandboxMode, ShellLauncher } from './launcher.ts';

/** A sandbox that has not run `true` by then does not work here. */
const PROBE_TIMEOUT_MS = 10_000;

export interface LauncherSettings {
  readonly sandbox: SandboxMode;
  readonly network: boolean;
  readonly maxProcesses: number;
  readonly maxMemoryBytes: number | undefined;
  readonly dataDir: string;
  /** The workspace root, hidden from each sandbox unless shells share it. */
  readonly workspace: string;
  readonly sharedWorkspace: boolean;
  /** Directories every sandboxed shell may read (`--readable`); unsandboxed shells see all. */
  readonly readable?: readonly string[];
  /** The environment shells start with: its PATH and HOME decide which tools stay visible. */
  readonly shellEnv: NodeJS.ProcessEnv;
  readonly pwshPath: string | null;
}

export interface ChosenLauncher {
  readonly launcher: ShellLauncher;
  /** Why shells are not sandboxed under `auto` (for the banner), else null. */
  readonly warning: string | null;
  /** How the process and memory limits are held: `cgroup`, `rlimit` or `none`. */
  readonly limits: 'cgroup' | 'rlimit' | 'none';
}

/** Thrown for `--sandbox bwrap` where bubblewrap cannot work. */
export class SandboxUnavailableError extends Error {}

export function findBwrap(env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, 'bwrap');
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** Runs `true` in a sandbox built like a shell's; null when it works, else why not. */
export function probeBwrap(bwrap: string, network: boolean): string | null {
  const result = spawnSync(bwrap, [...isolationArgs(network), '--', 'true'], {
    timeout: PROBE_TIMEOUT_MS,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (result.status === 0) return null;
  const said = (result.stderr ?? '').trim().split('\n')[0] ?? '';
  return (
    said ||
    (result.error ? result.error.message : `bwrap exited with ${result.status ?? result.signal}`)
  );
}

export function chooseLauncher(settings: LauncherSettings): ChosenLauncher {
  const cgroups = Cgroups.detect();
  const runKey = createHash('sha256').update(settings.dataDir).digest('hex').slice(0, 16);
  const direct = (warning: string | null): ChosenLauncher => ({
    launcher: directLauncher({
      runKey,
      maxProcesses: settings.maxProcesses,
      maxMemoryBytes: settings.maxMemoryBytes,
      cgroups,
    }),
    warning,
    limits: cgroups.holds('pids') ? 'cgroup' : 'none',
  });
  if (settings.sandbox === 'off') return direct(null);
  const bwrap = findBwrap(settings.shellEnv.PATH === undefined ? process.env : settings.shellEnv);
  const why =
    bwrap === null ? 'bubblewrap (bwrap) is not installed' : probeBwrap(bwrap, settings.network);
  if (why !== null || bwrap === null) {
    const reason = why ?? 'bubblewrap (bwrap) is not installed';
    if (settings.sandbox === 'bwrap') {
      throw new SandboxUnavailableError(`--sandbox bwrap: the sandbox cannot run here: ${reason}`);
    }
    return direct(
      `shells run UNSANDBOXED (--sandbox auto): ${reason}; install bubblewrap or pass --sandbox off to silence this`,
    );
  }
  const pathDirs = (settings.shellEnv.PATH ?? '').split(delimiter).filter((dir) => isAbsolute(dir));
  const launcher = bwrapLauncher({
    bwrap,
    network: settings.network,
    maxProcesses: settings.maxProcesses,
    maxMemoryBytes: settings.maxMemoryBytes,
    cgroups,
    hidden: {
      dataDir: settings.dataDir,
      workspaceRoot: settings.sharedWorkspace ? null : settings.workspace,
      home: settings.shellEnv.HOME,
      toolPaths: settings.pwshPath === null ? pathDirs : [...pathDirs, settings.pwshPath],
    },
    readable: settings.readable ?? [],
  });
  const rootExempt = process.getuid?.() === 0;
  return {
    launcher,
    warning: null,
    limits: cgroups.holds('pids') ? 'cgroup' : rootExempt ? 'none' : 'rlimit',
  };
}
