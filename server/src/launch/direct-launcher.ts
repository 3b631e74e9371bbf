/**
 * Shells straight on the host (`--sandbox off`, or `auto` where bubblewrap cannot work): no
 * isolation beyond the filtered environment and fresh descriptors. What a shell started is
 * still found and ended: its session and descendants, its cgroup where one can be made, and
 * otherwise every process carrying its tag in the environment (a daemon that `setsid`
 * detached keeps the variable unless it scrubs its environment: the sandbox is the answer to
 * an agent that does).
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { sessionTree } from '../pty/process-tree.ts';
import { sweepCgroups } from './bwrap-launcher.ts';
import type { Cgroups } from './cgroups.ts';
import type { Placement, PlacementRequest, ShellLauncher } from './launcher.ts';
import { hostPrelude } from './prelude.ts';

/** Set in each unsandboxed shell's environment: `<run key>:<random>`. */
export const SHELL_TAG_VARIABLE = 'SUPERVISED_SHELL_ID';

export interface DirectSettings {
  /** Names this server's shells across runs (from its data dir), for the start-up sweep. */
  readonly runKey: string;
  readonly maxProcesses: number;
  readonly maxMemoryBytes: number | undefined;
  readonly cgroups: Cgroups;
}

export function directLauncher(settings: DirectSettings): ShellLauncher {
  return {
    kind: 'off',
    place(request: PlacementRequest): Placement {
      // Without a cgroup no per-shell process limit holds here: RLIMIT_NPROC would count
      // every process of the server's user, the server's other shells included.
      const cgroup = settings.cgroups.create(settings);
      const tag = `${settings.runKey}:${randomBytes(8).toString('hex')}`;
      const [file, ...args] = hostPrelude(cgroup?.procFiles ?? [], [request.file, ...request.args]);
      return {
        spawn: {
          file: file as string,
          args,
          cwd: request.workspace,
          env: { ...request.env, [SHELL_TAG_VARIABLE]: tag },
          cols: request.cols,
          rows: request.rows,
        },
        members: async (ptyPid) => {
          const pids = await sessionTree(ptyPid);
          for (const pid of cgroup?.members() ?? []) pids.add(pid);
          for (const pid of await tagged((value) => value === tag)) pids.add(pid);
          return pids;
        },
        describeExit: (exit) => exit,
        release: () => cgroup?.remove(),
      };
    },
    async sweepLeftovers() {
      let ended = await sweepCgroups(settings.cgroups);
      for (const pid of await tagged((value) => value.startsWith(`${settings.runKey}:`))) {
        try {
          process.kill(pid, 'SIGKILL');
          ended++;
        } catch {
          // Gone already.
        }
      }
      return ended;
    },
  };
}

/** Processes whose environment has the shell tag with a value `matches` accepts. */
async function tagged(matches: (value: string) => boolean): Promise<number[]> {
  const prefix = `${SHELL_TAG_VARIABLE}=`;
  const found: number[] = [];
  const entries = await readdir('/proc').catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
      .map(async (name) => {
        const environ = await readFile(`/proc/${name}/environ`, 'latin1').catch(() => '');
        for (const entry of environ.split('\0')) {
          if (entry.startsWith(prefix) && matches(entry.slice(prefix.length))) {
            found.push(Number(name));
            return;
          }
        }
      }),
  );
  return found;
}
