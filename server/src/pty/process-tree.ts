/**
 * Ends a shell and everything it started, confirmed gone through /proc. What "everything"
 * is comes from the launcher (its cgroup, its sandbox's PID namespace); `sessionTree` is the
 * fallback where the host offers no list of a shell's processes. Each round reads only the
 * shell's own processes, so ending a shell costs what it owns, not what the host runs.
 */
import { descendants, readStatNow, sessionMembers } from './proc-probe.ts';

/** Time programs get to exit on SIGHUP (flush, restore the terminal) before SIGKILL. */
const HANGUP_GRACE_MS = 40;
/** How often, and how long at most, we look again for survivors after SIGKILL. */
const CONFIRM_INTERVAL_MS = 10;
const CONFIRM_LIMIT_MS = 400;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The shell and its descendants: the whole shell where orphans cannot leave the tree (a PID
 * namespace, whose init is a descendant of the PTY's process) or a cgroup lists them too.
 */
export async function shellTree(ptyPid: number): Promise<Set<number>> {
  const pids = new Set(descendants(ptyPid));
  pids.delete(process.pid);
  return pids;
}

/**
 * The session the shell leads (the shell itself while it lives, and its jobs, reparented or
 * not) plus whatever those started in sessions of their own. The shell's pid is never taken
 * on trust: once the shell is reaped, that number may belong to an unrelated process. Finding
 * reparented jobs scans every process of the host: only for a shell with neither a cgroup nor
 * a namespace of its own.
 */
export async function sessionTree(shellPid: number): Promise<Set<number>> {
  const pids = new Set<number>();
  for (const pid of await sessionMembers(shellPid)) {
    for (const member of descendants(pid)) pids.add(member);
  }
  pids.delete(process.pid);
  return pids;
}

function alive(pid: number): boolean {
  const stat = readStatNow(pid);
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X';
}

function signalAll(pids: Iterable<number>, signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
  }
}

/**
 * Hangs up the whole tree, then kills what is left, and resolves once /proc shows none of
 * it alive (or the confirmation limit passed). Returns the pids that were still alive.
 * `members` finds the tree (by default the shell's session and descendants; a launcher
 * knows more, e.g. a cgroup that `setsid` cannot leave). `watch: false` (a stop, for a tree
 * the kernel ends whole once its PID namespace's init is killed): SIGKILL goes to the tree
 * as read at the hang-up, and nothing is read again. Reading a thousand trees round after
 * round while their sandboxes were torn down was most of a stop's time.
 */
export async function endProcessTree(
  shellPid: number,
  members: (shellPid: number) => Promise<Set<number>> = sessionTree,
  { watch = true }: { watch?: boolean } = {},
): Promise<number[]> {
  const treeOf = async (pid: number): Promise<Set<number>> => {
    const pids = await members(pid);
    pids.delete(process.pid);
    return pids;
  };
  const first = await treeOf(shellPid);
  if (first.size === 0) return [];
  signalAll(first, 'SIGHUP');
  await sleep(HANGUP_GRACE_MS);
  if (!watch) {
    signalAll(first, 'SIGKILL');
    return [];
  }
  const deadline = Date.now() + CONFIRM_LIMIT_MS;
  let survivors: number[] = [];
  // SIGKILL cannot be caught or blocked: one is enough, and a thousand shells ending at a stop
  // sent each of their processes one a round for nothing (a kill costs the sender too).
  const killed = new Set<number>();
  do {
    const now = await treeOf(shellPid);
    for (const pid of first) now.add(pid);
    survivors = [...now].filter(alive);
    if (survivors.length === 0) return [];
    signalAll(
      survivors.filter((pid) => !killed.has(pid)),
      'SIGKILL',
    );
    for (const pid of survivors) killed.add(pid);
    await sleep(CONFIRM_INTERVAL_MS);
  } while (Date.now() < deadline);
  return survivors;
}
