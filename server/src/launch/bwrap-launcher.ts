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

import { sessionTree } from '../pty/process-tree.ts';
import { type PtyExit, signalName } from '../pty/pty-process.ts';
import type { Cgroups } from './cgroups.ts';
import type { Placement, PlacementRequest, ShellLauncher } from './launcher.ts';
import { hostPrelude, ownGroupPrelude, type RlimitSettings, rlimitPrelude } from './prelude.ts';
import { type HiddenPaths, hidingArgs, readableArgs, realOrNull } from './sandbox-paths.ts';

export interface BwrapSettings {
  readonly bwrap: string;
  /** Off: the sandbox has its own network namespace with loopback only. */
  readonly network: boolean;
  readonly hidden: HiddenPaths;
  /** Directories every shell may read (`--readable`). */
  readonly readable: readonly string[];
  readonly maxProcesses: number;
  readonly maxMemoryBytes: number | undefined;
  readonly cgroups: Cgroups;
}

/** Namespaces and privileges every sandbox starts with. */
export function isolationArgs(network: boolean): string[] {
  return [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(network ? [] : ['--unshare-net']),
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
  ];
}

export function bwrapLauncher(settings: BwrapSettings): ShellLauncher {
  const base = [
    ...isolationArgs(settings.network),
    ...hidingArgs(settings.hidden),
    ...readableArgs(settings.readable, settings.hidden),
  ];
  const rlimits: RlimitSettings = {
    // Counted per user namespace, so per sandbox, except for the host's root (exempt).
    ...(settings.cgroups.holds('pids') ? {} : { maxProcesses: settings.maxProcesses }),
    ...(settings.maxMemoryBytes === undefined || settings.cgroups.holds('memory')
      ? {}
      : { maxMemoryBytes: settings.maxMemoryBytes }),
  };
  return {
    kind: 'bwrap',
    place(request: PlacementRequest): Placement {
      const cgroup = settings.cgroups.create(settings);
      const workspace = realOrNull(request.workspace) ?? request.workspace;
      const privateDir = realOrNull(request.privateDir) ?? request.privateDir;
      const args = [...base, '--bind', workspace, workspace];
      for (const dir of request.readable) {
        const real = realOrNull(dir);
        if (real) args.push('--ro-bind', real, real);
      }
      args.push('--bind', privateDir, privateDir, '--chdir', workspace, '--');
      const command = [request.file, ...request.args];
      const inner = rlimitPrelude(
        rlimits,
        request.leadsProcessGroup ? command : ownGroupPrelude(command),
      );
      const [file, ...rest] = hostPrelude(cgroup?.procFiles ?? [], [
        settings.bwrap,
        ...args,
        ...inner,
      ]);
      return {
        spawn: {
          file: file as string,
          args: rest,
          cwd: workspace,
          env: request.env,
          cols: request.cols,
          rows: request.rows,
        },
        // Everything in the sandbox descends from bwrap: orphans are reparented to the
        // namespace's init, which is bwrap's child.
        members: async (ptyPid) => {
          const pids = await sessionTree(ptyPid);
          for (const pid of cgroup?.members() ?? []) pids.add(pid);
          return pids;
        },
        describeExit: sandboxedExit,
        release: () => cgroup?.remove(),
      };
    },
    async sweepLeftovers() {
      return sweepCgroups(settings.cgroups);
    },
  };
}

/** Status offset shells and bwrap use for "killed by signal N" (128 + N). */
const SIGNAL_STATUS_BASE = 128;
/** Signals a process can be killed by (1-31; real-time signals are not named). */
const LAST_NAMED_SIGNAL = 31;

/**
 * bwrap exits with its command's status, and reports a command killed by signal N as
 * 128 + N, the way shells do. So a sandboxed shell that itself exits with such a status
 * (`exit 137`) is reported as killed by that signal: the two cannot be told apart from here.
 */
function sandboxedExit(exit: PtyExit): PtyExit {
  const number = (exit.code ?? 0) - SIGNAL_STATUS_BASE;
  const name = number >= 1 && number <= LAST_NAMED_SIGNAL ? signalName(number) : null;
  return exit.signal === null && name !== null ? { code: null, signal: name } : exit;
}

/** Kills the members of cgroups a dead run left and removes them; returns how many died. */
export async function sweepCgroups(cgroups: Cgroups): Promise<number> {
  const left = cgroups.leftovers();
  for (const pid of left.members) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  if (left.members.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  left.remove();
  return left.members.size;
}
