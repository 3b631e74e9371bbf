/**
 * Shells inside bubblewrap, one sandbox each: their own user, PID, IPC and UTS namespaces
 * (the server, other shells and their processes do not exist for them), their own /tmp, /dev
 * and devpts (no other terminal to open), no capabilities, the system read-only with the
 * server's files hidden (sandbox-paths.ts), their own workspace writable and their own saved
 * outputs readable. The sandbox's PID namespace dies with its first process, so nothing a
 * shell started (setsid, nohup, double forks) outlives it; `--die-with-parent` and the
 * terminal's hangup end it when the server dies.
 *
 * We drive `bwrap` ourselves rather than through @anthropic-ai/sandbox-runtime: that library
 * is built to wrap one command line per call with file and network policies (and a proxy for
 * the network), where we need a long-lived interactive process on our own PTY, a PID namespace
 * we can count and end, and exact control of what is mounted where; its value is in the
 * policy and proxy layers, which we would have to switch off.
 */

import { existsSync } from 'node:fs';
import { shellTree } from '../pty/process-tree.ts';
import { type PtyExit, signalName } from '../pty/pty-process.ts';
import type { Cgroups } from './cgroups.ts';
import { exitWaiterPrelude } from './exit-waiter.ts';
import { withoutForeignMounts } from './foreign-mounts.ts';
import type { Placement, PlacementRequest, ShellLauncher } from './launcher.ts';
import { sweepLeftovers } from './leftover-sweep.ts';
import { NetworkSpares, type SpareTools } from './network-spares.ts';
import {
  dropPrelude,
  hostPrelude,
  ownGroupPrelude,
  type RlimitSettings,
  rlimitPrelude,
  SECCOMP_FD,
} from './prelude.ts';
import { SPARE_MOUNT_DIR } from './quota-keeper.ts';
import {
  attachNetwork,
  type EgressOptions,
  NETWORK_TAG_VARIABLE,
  type NetworkAttachment,
  type NetworkMode,
  ownNetworkPrelude,
} from './sandbox-network.ts';
import {
  type HiddenPaths,
  hiddenHome,
  hidingArgs,
  mountArgs,
  readableArgs,
  realOrNull,
} from './sandbox-paths.ts';
import { devArgs, sizedTmpfs } from './sandbox-tmpfs.ts';
import { giveWorkspace, shareWithShell } from './shell-ownership.ts';
import type { ShellUser } from './shell-user.ts';
import type { WorkspaceQuota } from './workspace-quota.ts';

export interface BwrapSettings {
  readonly bwrap: string;
  /** `host` shares the host's network; otherwise a namespace of its own (sandbox-network.ts). */
  readonly network: NetworkMode;
  /** For `--network on`: the slirp4netns that gives each namespace its egress. */
  readonly egress: EgressOptions | null;
  /** For `--network on`: what spare networks are made with (network-spares.ts); null, none. */
  readonly spareTools: SpareTools | null;
  /** Size of each tmpfs the sandbox mounts, in bytes. */
  readonly tmpSizeBytes: number;
  readonly cpuWeight: number;
  readonly cpuMax: number | undefined;
  /** Mounts each workspace's own file system before its first shell; null: no quota. */
  readonly quota: WorkspaceQuota | null;
  readonly hidden: HiddenPaths;
  /** Directories every shell may read (`--readable`). */
  readonly readable: readonly string[];
  readonly maxProcesses: number;
  readonly maxMemoryBytes: number | undefined;
  readonly cgroups: Cgroups;
  /** Who shells run as when the server is root (with setpriv to become it); else null. */
  readonly shellUser: { readonly user: ShellUser; readonly setpriv: string } | null;
  /** The compiled seccomp filter (seccomp-filter.ts) in a server-only file; null for none. */
  readonly seccompFile: string | null;
}

/**
 * What the sandbox's first step keeps when root starts it, to become the shell user
 * (prelude.ts, dropPrelude); everything else is dropped, and these go with the uid change.
 * CAP_DAC_READ_SEARCH lets bwrap enter the workspace, which is the shell user's (mode 700).
 */
const DROP_CAPABILITIES = [
  'CAP_SETUID',
  'CAP_SETGID',
  'CAP_SETPCAP',
  'CAP_CHOWN',
  'CAP_DAC_READ_SEARCH',
];

/** Parts of /proc that change the host, made read-only over the sandbox's own /proc. */
const PROC_WALLS = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus'];

/**
 * Namespaces and privileges every sandbox starts with. `dropsUser`: the server is root and
 * the shell becomes the shell user inside (shell-user.ts). Then there is no user namespace:
 * bwrap run by root with `--unshare-user` maps the sandbox's uid 0 to the host's uid 0, and
 * one made by the shell user instead could not bind the server's files (root's 0700 home,
 * the data dir) that only root can reach. So root builds the mounts and the sandbox's first
 * step gives up root for good, the way `su` would, under the seccomp filter. Tmpfs sizes
 * come from sizedTmpfs.
 */
export function isolationArgs(
  network: NetworkMode,
  dropsUser = false,
  networkMadeBefore = false,
): string[] {
  return [
    ...(dropsUser ? [] : ['--unshare-user']),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(network === 'host' || networkMadeBefore ? [] : ['--unshare-net']),
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    ...(dropsUser ? DROP_CAPABILITIES.flatMap((cap) => ['--cap-add', cap]) : []),
    '--ro-bind',
    '/',
    '/',
    ...devArgs(),
    '--proc',
    '/proc',
    // bwrap covers these only where it finds them writable; some (sysrq-trigger in a
    // container) do not exist at all.
    ...PROC_WALLS.flatMap((path) => ['--ro-bind-try', path, path]),
    // Everyone's and sticky, as on any host (bwrap makes a tmpfs 0755 otherwise).
    '--perms',
    '01777',
    '--tmpfs',
    '/tmp',
  ];
}

export function bwrapLauncher(settings: BwrapSettings): ShellLauncher {
  const drop = settings.shellUser;
  // Not root: the namespace slirp4netns enters is made before bwrap (see EgressOptions.unshare).
  const unshare =
    settings.network === 'on' && drop === null ? (settings.egress?.unshare ?? null) : null;
  const spares =
    settings.network === 'on' && settings.egress !== null && settings.spareTools !== null
      ? new NetworkSpares(settings.egress, settings.spareTools)
      : null;
  const baseArgs = (networkMadeBefore: boolean): string[] => [
    ...isolationArgs(settings.network, drop !== null, networkMadeBefore),
    ...(settings.seccompFile === null ? [] : ['--seccomp', String(SECCOMP_FD)]),
    ...hidingArgs(settings.hidden),
    ...readableArgs(settings.readable, settings.hidden),
  ];
  const base = baseArgs(unshare !== null);
  // In a spare's namespace (network-spares.ts), made before bwrap.
  const baseInSpare = baseArgs(true);
  const home = hiddenHome(settings.hidden);
  const rlimits: RlimitSettings = {
    // Counted per user namespace, so per sandbox, except for the host's root (exempt).
    ...(settings.cgroups.holds('pids') ? {} : { maxProcesses: settings.maxProcesses }),
    ...(settings.maxMemoryBytes === undefined || settings.cgroups.holds('memory')
      ? {}
      : { maxMemoryBytes: settings.maxMemoryBytes }),
  };
  const runKey = settings.egress?.runKey;
  return {
    kind: 'bwrap',
    shellMayReplaceFiles: false,
    place(request: PlacementRequest): Placement {
      const cgroup = settings.cgroups.create(settings);
      const workspace = realOrNull(request.workspace) ?? request.workspace;
      // The engine's files read-only (the server never writes where the shell can), and
      // bound after the hiding of the data dir they live in; only the shell's part writable.
      const privateDir = realOrNull(request.privateDir) ?? request.privateDir;
      const privateWritable = realOrNull(request.privateWritable) ?? request.privateWritable;
      const readable = request.readable.map(realOrNull).filter((dir) => dir !== null);
      if (drop) {
        giveWorkspace(workspace, drop.user);
        giveWorkspace(privateWritable, drop.user);
        for (const dir of [privateDir, ...readable]) shareWithShell(dir, drop.user);
      }
      const spare = spares?.take() ?? null;
      const args = [
        ...(spare === null ? base : baseInSpare),
        ...mountArgs('--bind', workspace, workspace),
      ];
      for (const dir of readable) args.push(...mountArgs('--ro-bind', dir, dir));
      args.push(
        ...mountArgs('--ro-bind', privateDir, privateDir),
        ...mountArgs('--bind', privateWritable, privateWritable),
        '--chdir',
        workspace,
        '--',
      );
      const shell = [request.file, ...request.args];
      const command =
        request.exitMarkPrefix === undefined
          ? shell
          : exitWaiterPrelude(request.exitMarkPrefix, shell);
      const limited = rlimitPrelude(
        rlimits,
        request.leadsProcessGroup ? command : ownGroupPrelude(command),
      );
      const inner = drop
        ? dropPrelude(drop.user, drop.setpriv, home === null ? [] : [home], limited)
        : limited;
      const sandbox = [settings.bwrap, ...sizedTmpfs(args, settings.tmpSizeBytes), ...inner];
      const walled =
        spare !== null
          ? spare.enter(sandbox)
          : unshare === null
            ? sandbox
            : ownNetworkPrelude(unshare, sandbox);
      // The seccomp program is opened by the host prelude and passed down to bwrap.
      // Root's sandboxes copy the host's mounts: never other servers' (foreign-mounts.ts).
      const contained =
        settings.quota?.wrap(workspace, walled) ??
        (drop === null
          ? walled
          : withoutForeignMounts({ workspace, root: '', spares: SPARE_MOUNT_DIR }, walled));
      const [file, ...rest] = hostPrelude(cgroup?.procFiles ?? [], contained, {
        seccompFile: settings.seccompFile,
      });
      let network: NetworkAttachment | null = spare?.attachment ?? null;
      return {
        spawn: {
          file: file as string,
          args: rest,
          cwd: workspace,
          env: drop?.user.name ? { ...request.env, ...identityEnv(drop.user.name) } : request.env,
          cols: request.cols,
          rows: request.rows,
        },
        // Everything in the sandbox descends from bwrap: orphans are reparented to the
        // namespace's init, which is bwrap's child, and nothing leaves a PID namespace. So
        // the tree under the PTY's process is the whole shell, found without scanning /proc;
        // its cgroup is asked only once that process is gone (a cgroup's list is a costly
        // read, a thousand of them at a stop). slirp4netns, in the cgroup too, ends with release().
        members: async (ptyPid, ptyOurs) =>
          ptyOurs ? shellTree(ptyPid) : new Set(cgroup?.members() ?? []),
        // `--unshare-pid`: the namespace's init is bwrap's child, under the PTY's process.
        contained: true,
        describeExit: sandboxedExit,
        started: async (ptyPid) => {
          if (settings.egress === null) return;
          if (spare !== null) {
            spare.joinCgroups(cgroup?.procFiles ?? []);
            return;
          }
          try {
            network = await attachNetwork(settings.egress, ptyPid, cgroup?.procFiles ?? []);
          } catch (error) {
            // A shell that ended while its network was being attached needs none.
            if (!existsSync(`/proc/${ptyPid}`)) return;
            // The shell still runs, loopback only; the operator learns why.
            process.stderr.write(
              `jumpseat: a shell's network could not be attached: ${(error as Error).message}\n`,
            );
          }
        },
        settled: () => {
          spares?.shellSettled();
          settings.quota?.shellSettled();
        },
        yieldCpu: () => cgroup?.yieldCpu(),
        release: () => {
          network?.stop();
          cgroup?.remove();
        },
      };
    },
    sweepLeftovers: async () => {
      const ended = await sweepLeftovers(settings.cgroups, [
        // Without a cgroup to hold them, a killed run's slirp4netns (and spares) go by their tag.
        ...(settings.egress === null
          ? []
          : [{ variable: NETWORK_TAG_VARIABLE, matches: (value: string) => value === runKey }]),
      ]);
      // Only now: the sweep would end this run's spares too, which carry the same tag.
      spares?.arm();
      settings.quota?.armSpares();
      return ended;
    },
    close: async () => {
      spares?.close();
      settings.cgroups.restoreYielded();
      await settings.cgroups.removeLingering();
    },
  };
}

/** Who the shell is, for programs that read it from the environment (as login does). */
function identityEnv(name: string): Record<string, string> {
  return { USER: name, LOGNAME: name };
}

/** Status offset shells and bwrap use for "killed by signal N" (128 + N). */
const SIGNAL_STATUS_BASE = 128;
/** Signals a process can be killed by (1-31; real-time signals are not named). */
const LAST_NAMED_SIGNAL = 31;

/**
 * bwrap exits with its command's status, and reports a command killed by signal N as
 * 128 + N, the way shells do. So a sandboxed shell that itself exits with such a status
 * (`exit 137`) would be reported as killed by that signal: this is the guess when the exit
 * waiter's mark (exit-waiter.ts), which tells them apart, did not arrive.
 */
function sandboxedExit(exit: PtyExit): PtyExit {
  const number = (exit.code ?? 0) - SIGNAL_STATUS_BASE;
  const name = number >= 1 && number <= LAST_NAMED_SIGNAL ? signalName(number) : null;
  return exit.signal === null && name !== null ? { code: null, signal: name } : exit;
}
