/**
 * Ends a shell and everything it started: its descendants and every process of its
 * session (jobs that were reparented when the shell died), confirmed gone through /proc.
 */
import { descendants, readStat, sessionMembers } from './proc-probe.ts';

/** Time programs get to exit on SIGHUP (flush, restore the terminal) before SIGKILL. */
const HANGUP_GRACE_MS = 40;
/** How often, and how long at most, we look again for survivors after SIGKILL. */
const CONFIRM_INTERVAL_MS = 10;
const CONFIRM_LIMIT_MS = 400;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The session the shell leads (the shell itself while it lives, and its jobs, reparented or
 * not) plus whatever those started in sessions of their own. The shell's pid is never taken
 * on trust: once the shell is reaped, that number may belong to an unrelated process.
 */
export async function sessionTree(shellPid: number): Promise<Set<number>> {
  const pids = new Set<number>();
  for (const pid of await sessionMembers(shellPid)) {
    for (const member of await descendants(pid)) pids.add(member);
  }
  pids.delete(process.pid);
  return pids;
}

async function alive(pid: number): Promise<boolean> {
  const stat = await readStat(pid);
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
 * knows more, e.g. a cgroup that `setsid` cannot leave).
 */
export async function endProcessTree(
  shellPid: number,
  members: (shellPid: number) => Promise<Set<number>> = sessionTree,
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
  const deadline = Date.now() + CONFIRM_LIMIT_MS;
  let survivors: number[] = [];
  do {
    const now = await treeOf(shellPid);
    for (const pid of first) now.add(pid);
    survivors = [];
    for (const pid of now) if (await alive(pid)) survivors.push(pid);
    if (survivors.length === 0) return [];
    signalAll(survivors, 'SIGKILL');
    await sleep(CONFIRM_INTERVAL_MS);
  } while (Date.now() < deadline);
  return survivors;
}
