/**
 * Shells straight on the host (`--sandbox off`, or `auto` where bubblewrap cannot work): no
 * isolation beyond the filtered environment and fresh descriptors. What a shell started is
 * still found and ended: its session and descendants, its cgroup where one can be made, and
 * otherwise every process carrying its tag in the environment (a daemon that `setsid`
 * detached keeps the variable unless it scrubs its environment: the sandbox is the answer to
 * an agent that does).
 */
import { randomBytes } from 'node:crypto';
import { sessionTree, shellTree } from '../pty/process-tree.ts';
import type { CgroupLimits, Cgroups } from './cgroups.ts';
import type { Placement, PlacementRequest, ShellLauncher } from './launcher.ts';
import { sweepLeftovers } from './leftover-sweep.ts';
import { hostPrelude, rlimitPrelude } from './prelude.ts';
import { realOrNull } from './sandbox-paths.ts';
import { taggedProcesses } from './tagged-processes.ts';
import type { WorkspaceQuota } from './workspace-quota.ts';

/** Set in each unsandboxed shell's environment: `<run key>:<random>`. */
export const SHELL_TAG_VARIABLE = 'SUPERVISED_SHELL_ID';

export interface DirectSettings extends CgroupLimits {
  /** Names this server's shells across runs (from its data dir), for the start-up sweep. */
  readonly runKey: string;
  readonly cgroups: Cgroups;
  readonly quota: WorkspaceQuota | null;
}

export function directLauncher(settings: DirectSettings): ShellLauncher {
  return {
    kind: 'off',
    shellMayReplaceFiles: true,
    place(request: PlacementRequest): Placement {
      // Without a cgroup no per-shell process limit holds here: RLIMIT_NPROC would count
      // every process of the server's user, the server's other shells included.
      const cgroup = settings.cgroups.create(settings);
      const tag = `${settings.runKey}:${randomBytes(8).toString('hex')}`;
      // Without a memory cgroup, RLIMIT_AS bounds each process instead of the whole shell.
      const memoryRlimit =
        settings.maxMemoryBytes !== undefined && !settings.cgroups.holds('memory')
          ? { maxMemoryBytes: settings.maxMemoryBytes }
          : {};
      const command = rlimitPrelude(memoryRlimit, [request.file, ...request.args]);
      const workspace = realOrNull(request.workspace) ?? request.workspace;
      const [file, ...args] = hostPrelude(
        cgroup?.procFiles ?? [],
        settings.quota?.wrap(workspace, command) ?? command,
      );
      return {
        spawn: {
          file: file as string,
          args,
          cwd: request.workspace,
          env: { ...request.env, [SHELL_TAG_VARIABLE]: tag },
          cols: request.cols,
          rows: request.rows,
        },
        // A cgroup lists every process of the shell (setsid and double forks cannot leave
        // it), so the host is scanned only where there is none: for the session's
        // reparented jobs and for the tag.
        members: async (ptyPid, ptyOurs) => {
          if (cgroup) {
            const pids = ptyOurs ? await shellTree(ptyPid) : new Set<number>();
            for (const pid of cgroup.members()) pids.add(pid);
            return pids;
          }
          const pids = await sessionTree(ptyPid);
          for (const pid of await taggedProcesses(SHELL_TAG_VARIABLE, (value) => value === tag))
            pids.add(pid);
          return pids;
        },
        describeExit: (exit) => exit,
        // A process that forks as the tree is read escapes a kill of what was read: watched.
        contained: false,
        settled: () => settings.quota?.shellSettled(),
        yieldCpu: () => cgroup?.yieldCpu(),
        release: () => cgroup?.remove(),
      };
    },
    sweepLeftovers: async () => {
      const ended = await sweepLeftovers(settings.cgroups, [
        {
          variable: SHELL_TAG_VARIABLE,
          matches: (value) => value.startsWith(`${settings.runKey}:`),
        },
      ]);
      settings.quota?.armSpares();
      return ended;
    },
    close: async () => {
      settings.cgroups.restoreYielded();
      await settings.cgroups.removeLingering();
    },
  };
}
