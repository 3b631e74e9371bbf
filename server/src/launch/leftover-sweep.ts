/**
 * The start-up sweep: what an earlier run of this server (on this data dir) left when it was
 * killed without a shutdown: the members of its cgroups and the processes carrying its tags
 * (unsandboxed shells' daemons, sandboxes' slirp4netns). Only this data dir's: the cgroups and tags
 * carry its run key, so a neighbour on another data dir, alive or dead, is never touched.
 */
import type { Cgroups } from './cgroups.ts';
import { taggedProcesses } from './tagged-processes.ts';

/**
 * How long killed processes are given to leave their cgroups, looked at every
 * LEAVE_GROUP_STEP_MS: on a quiet machine a few milliseconds, on a loaded one a killed
 * process took longer than the fixed 50 ms this once was (two CPU hogs in CI), and its
 * groups stayed until the next start. A group still busy after this, or one that cannot be
 * removed though empty, is left to that start.
 */
const LEAVE_GROUP_LIMIT_MS = 5000;
const LEAVE_GROUP_STEP_MS = 20;
/**
 * A group that lists no member may still refuse removal for a moment: a killed process that
 * has left the list stays counted until its parent reaps it (seen in CI under load: the
 * groups stayed, though the sweep had ended their one process). Tried again for this long.
 */
const EMPTY_GROUP_GRACE_MS = 1000;

/** A variable whose value tags a process as this run key's. */
export interface LeftoverTag {
  readonly variable: string;
  readonly matches: (value: string) => boolean;
}

/** Kills what earlier runs left and removes their cgroups; returns how many processes died. */
export async function sweepLeftovers(
  cgroups: Cgroups,
  tags: readonly LeftoverTag[],
): Promise<number> {
  const left = cgroups.leftovers();
  const victims = new Set(left.members);
  for (const tag of tags) {
    for (const pid of await taggedProcesses(tag.variable, tag.matches)) victims.add(pid);
  }
  const signalled = new Set<number>();
  let ended = killAll(victims, signalled);
  const until = Date.now() + LEAVE_GROUP_LIMIT_MS;
  let emptySince: number | null = null;
  // Until every group is gone, or none that stays has had a member for a while. A member
  // seen again is killed again: one forked between the first look and the kill (a process
  // that forks without end) would otherwise outlive its dead server.
  while (!left.remove() && Date.now() < until) {
    const now = left.membersNow();
    if (now.size > 0) emptySince = null;
    else if (emptySince === null) emptySince = Date.now();
    else if (Date.now() - emptySince > EMPTY_GROUP_GRACE_MS) break;
    ended += killAll(now, signalled);
    await new Promise((resolve) => setTimeout(resolve, LEAVE_GROUP_STEP_MS));
  }
  return ended;
}

/**
 * SIGKILL to each; returns how many were still there to get it and had not had it before
 * (a killed process stays a member until it has exited: counted once).
 */
function killAll(pids: Iterable<number>, signalled: Set<number>): number {
  let ended = 0;
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
      if (!signalled.has(pid)) ended++;
      signalled.add(pid);
    } catch {
      // Gone already.
    }
  }
  return ended;
}
