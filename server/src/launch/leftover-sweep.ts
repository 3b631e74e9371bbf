/**
 * The start-up sweep: what an earlier run of this server (on this data dir) left when it was
 * killed without a shutdown: the members of its cgroups and the processes carrying its tags
 * (unsandboxed shells' daemons, sandboxes' slirp4netns). Only this data dir's: the cgroups and tags
 * carry its run key, so a neighbour on another data dir, alive or dead, is never touched.
 */
import type { Cgroups } from './cgroups.ts';
import { taggedProcesses } from './tagged-processes.ts';

/** A killed process leaves its cgroup within this; the empty group can then be removed. */
const LEAVE_GROUP_MS = 50;

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
  let ended = 0;
  for (const pid of victims) {
    try {
      process.kill(pid, 'SIGKILL');
      ended++;
    } catch {
      // Gone already.
    }
  }
  if (left.members.size > 0) await new Promise((resolve) => setTimeout(resolve, LEAVE_GROUP_MS));
  left.remove();
  return ended;
}
