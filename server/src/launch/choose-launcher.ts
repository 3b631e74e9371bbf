/**
 * Picks where shells run from `--sandbox`: `bwrap` requires bubblewrap to work here (the
 * server refuses to start otherwise), `auto` uses it wherever it works and else runs shells
 * unsandboxed with a one-line warning, `off` never sandboxes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { delimiter, isAbsolute } from 'node:path';
import { findOnPath as findInPath } from '../pty/executable-path.ts';
import { bwrapLauncher, isolationArgs } from './bwrap-launcher.ts';
import { Cgroups } from './cgroups.ts';
import { directLauncher } from './direct-launcher.ts';
import { kernelHasIpv6 } from './egress-ipv6.ts';
import { egressSubnet } from './egress-subnet.ts';
import type { SandboxMode, ShellLauncher } from './launcher.ts';
import type { SpareTools } from './network-spares.ts';
import type { NetworkMode } from './sandbox-network.ts';
import { prepareWalls, type SandboxWalls, WallError } from './sandbox-walls.ts';
import type { ShellResources } from './shell-resources.ts';
import { DEFAULT_SHELL_USER } from './shell-user.ts';
import { landlockShortfall } from './slirp-landlock.ts';
import { WorkspaceQuota } from './workspace-quota.ts';

/** A sandbox that has not run `true` by then does not work here. */
const PROBE_TIMEOUT_MS = 10_000;
/** slirp4netns's side of the namespace is a tap device: without this node it cannot start. */
const TUN_DEVICE = '/dev/net/tun';
/** Hex digits of the data dir's hash that name this server's shells, cgroups and networks. */
const RUN_KEY_DIGITS = 16;

export interface LauncherSettings extends ShellResources {
  readonly sandbox: SandboxMode;
  readonly dataDir: string;
  /** The workspace root, hidden from each sandbox unless shells share it. */
  readonly workspace: string;
  readonly sharedWorkspace: boolean;
  /** Directories every sandboxed shell may read (`--readable`); unsandboxed shells see all. */
  readonly readable?: readonly string[];
  /** The environment shells start with: its PATH and HOME decide which tools stay visible. */
  readonly shellEnv: NodeJS.ProcessEnv;
  readonly pwshPath: string | null;
  /** `--shell-user`: who sandboxed shells run as when the server is root. */
  readonly shellUser?: string;
}

export interface ChosenLauncher {
  readonly launcher: ShellLauncher;
  /** Why shells are not sandboxed under `auto` (for the banner), else null. */
  readonly warning: string | null;
  /** How the process limit is held: `cgroup`, `rlimit` or `none`. */
  readonly limits: LimitHolder;
  /** How the memory limit is held (`rlimit`: RLIMIT_AS, per process). */
  readonly memory: LimitHolder;
  /** Whether the CPU weight (and cap) holds. */
  readonly cpu: 'cgroup' | 'none';
  /** The network shells actually get, and why it is not the one asked for (else null). */
  readonly network: NetworkMode;
  readonly networkWarning: string | null;
  /** Each workspace's own file system where the quota holds, else why it does not. */
  readonly quota: WorkspaceQuota | { readonly why: string };
  /** Who sandboxed shells run as and under which filter (for the banner); null unsandboxed. */
  readonly walls: string | null;
}

export type LimitHolder = 'cgroup' | 'rlimit' | 'none';

/** Thrown for `--sandbox bwrap` where bubblewrap cannot work. */
export class SandboxUnavailableError extends Error {}

export function findBwrap(env: NodeJS.ProcessEnv): string | null {
  return findOnPath('bwrap', env);
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | null {
  return findInPath(name, env.PATH);
}

/**
 * slirp4netns for `--network on` (and, for a server that is not root, `unshare` to make the
 * namespace it can enter: see sandbox-network.ts), or why there is none.
 */
function findSlirp(
  env: NodeJS.ProcessEnv,
): { slirp: string; setpriv: string; unshare: string } | { why: string } {
  const slirp = findOnPath('slirp4netns', env);
  if (slirp === null) return { why: 'slirp4netns is not installed (Debian package slirp4netns)' };
  if (!existsSync(TUN_DEVICE)) return { why: `${TUN_DEVICE} is missing, which slirp4netns needs` };
  const search = utilLinuxSearch(env);
  const setpriv = findOnPath('setpriv', search);
  if (setpriv === null) return { why: 'setpriv is not installed (Debian package util-linux)' };
  const unshare = findOnPath('unshare', search);
  if (unshare === null) return { why: 'unshare is not installed (Debian package util-linux)' };
  return { slirp, setpriv, unshare };
}

/**
 * util-linux's unshare, nsenter and setpriv, which spare networks need (network-spares.ts);
 * null without them (each shell then waits for its own slirp4netns).
 */
function findSpareTools(env: NodeJS.ProcessEnv): SpareTools | null {
  const search = utilLinuxSearch(env);
  const unshare = findOnPath('unshare', search);
  const nsenter = findOnPath('nsenter', search);
  const setpriv = findOnPath('setpriv', search);
  return unshare === null || nsenter === null || setpriv === null
    ? null
    : { unshare, nsenter, setpriv };
}

/** Where util-linux's programs are looked for: a root server's PATH may be short. */
function utilLinuxSearch(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { PATH: `${env.PATH ?? ''}${delimiter}/usr/bin${delimiter}/bin` };
}

/** Runs `true` in a sandbox built like a shell's; null when it works, else why not. */
export function probeBwrap(bwrap: string, network: NetworkMode): string | null {
  const dropsUser = process.getuid?.() === 0;
  const result = spawnSync(bwrap, [...isolationArgs(network, dropsUser), '--', 'true'], {
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

/** What names a server's shells, cgroups, networks and spares: a hash of its data dir. */
export function runKeyOf(dataDir: string): string {
  return createHash('sha256').update(dataDir).digest('hex').slice(0, RUN_KEY_DIGITS);
}

export function chooseLauncher(settings: LauncherSettings): ChosenLauncher {
  const runKey = runKeyOf(settings.dataDir);
  const cgroups = Cgroups.detect(runKey);
  const limits = {
    maxProcesses: settings.maxProcesses,
    maxMemoryBytes: settings.maxMemoryBytes,
    cpuWeight: settings.cpuWeight,
    cpuMax: settings.cpuMax,
  };
  const memory: LimitHolder =
    settings.maxMemoryBytes === undefined ? 'none' : cgroups.holds('memory') ? 'cgroup' : 'rlimit';
  const cpu = cgroups.holds('cpu') && cgroups.holds('pids') ? 'cgroup' : 'none';
  const quota = WorkspaceQuota.detect({
    bytes: settings.workspaceQuotaBytes,
    root: settings.workspace,
    shared: settings.sharedWorkspace,
    runKey,
  });
  const mounts = quota instanceof WorkspaceQuota ? quota : null;
  const direct = (warning: string | null): ChosenLauncher => ({
    launcher: directLauncher({ runKey, ...limits, cgroups, quota: mounts }),
    warning,
    limits: cgroups.holds('pids') ? 'cgroup' : 'none',
    walls: null,
    memory,
    cpu,
    // Unsandboxed shells are on the host's network whatever was asked.
    network: 'host',
    networkWarning: null,
    quota,
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
  let walls: SandboxWalls;
  try {
    walls = prepareWalls({
      dataDir: settings.dataDir,
      shellUser: settings.shellUser ?? DEFAULT_SHELL_USER,
      path: settings.shellEnv.PATH ?? process.env.PATH,
      serverUid: process.getuid?.() ?? -1,
    });
  } catch (error) {
    if (!(error instanceof WallError)) throw error;
    // Never a quiet fall back to no sandbox: as root that would be the whole host.
    throw new SandboxUnavailableError(
      `--sandbox ${settings.sandbox}: the sandbox cannot run here: ${error.message}`,
    );
  }
  const pathDirs = (settings.shellEnv.PATH ?? '').split(delimiter).filter((dir) => isAbsolute(dir));
  const found = settings.network === 'on' ? findSlirp(process.env) : null;
  const egress =
    found !== null && 'slirp' in found
      ? {
          slirp: found.slirp,
          setpriv: found.setpriv,
          subnet: egressSubnet(),
          ipv6: kernelHasIpv6(),
          unshare: found.unshare,
          runKey,
        }
      : null;
  const network: NetworkMode =
    settings.network === 'on' && egress === null ? 'off' : settings.network;
  const launcher = bwrapLauncher({
    bwrap,
    network,
    egress,
    spareTools: egress === null ? null : findSpareTools(process.env),
    tmpSizeBytes: settings.tmpSizeBytes,
    ...limits,
    cgroups,
    quota: mounts,
    hidden: {
      dataDir: settings.dataDir,
      workspaceRoot: settings.sharedWorkspace ? null : settings.workspace,
      home: settings.shellEnv.HOME,
      toolPaths: settings.pwshPath === null ? pathDirs : [...pathDirs, settings.pwshPath],
    },
    readable: settings.readable ?? [],
    shellUser: walls.shellUser,
    seccompFile: walls.seccompFile,
  });
  // Root's processes are exempt from RLIMIT_NPROC; the shell user's are not (they count
  // together for every shell of that user, as there is no user namespace then).
  const rootExempt = process.getuid?.() === 0 && walls.shellUser === null;
  return {
    launcher,
    warning: null,
    limits: cgroups.holds('pids') ? 'cgroup' : rootExempt ? 'none' : 'rlimit',
    walls: walls.summary,
    memory,
    cpu,
    network,
    networkWarning:
      found !== null && 'why' in found
        ? `shells are loopback only (--network on): ${found.why}; install it, or pass --network off to silence this`
        : egressUnconfined(egress !== null),
    quota,
  };
}

/**
 * An unprivileged server's slirp4netns parses the agents' packets as the server's user, under
 * Landlock (slirp-landlock.ts); where Landlock is missing the operator hears so at start.
 */
function egressUnconfined(egressOn: boolean): string | null {
  if (!egressOn || process.getuid?.() === 0) return null;
  const why = landlockShortfall();
  return why === null
    ? null
    : `slirp4netns (--network on) runs unconfined as this server's user: ${why}; a flaw in its packet parser would reach the data dir. Run the server as root (its slirp4netns sandboxes itself) or on a kernel with Landlock, or pass --network off`;
}
