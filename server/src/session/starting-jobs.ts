/**
 * Jobs a shell is starting: a child that has a process group of its own but is still a copy
 * of the shell, not yet its program. A SIGINT in that moment is lost (bash's handler in the
 * parent or in the copy takes it, and the program then runs on), so an interrupt meant for
 * the job is sent to it once it runs its program (call-interrupt.ts, typed-interrupt.ts).
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { childrenOf, type ProcStat, readStatNow } from '../pty/proc-probe.ts';

/** Spacing of the looks at a job that is still starting. */
export const JOB_LOOK_STEP_MS = 5;
/**
 * How long a job still starting is waited for before it is signalled anyway: a subshell or
 * a function in a pipeline never becomes another program, and then this is the only delay
 * the interrupt has.
 */
const EXEC_WAIT_LIMIT_MS = 250;
/**
 * A copy of the shell older than this is not starting a job: it is one (a subshell, a loop in
 * a pipeline), already past the moment a signal is lost. Bash forks and runs the program
 * within milliseconds; this leaves room for a loaded machine.
 */
const STARTING_AGE_LIMIT_MS = 500;
/**
 * The newest children looked at: a job starting is among the last few the shell forked (the
 * kernel lists children oldest first), and an agent's shell with thousands of background
 * jobs must not make each look read thousands of files while the server waits.
 */
const NEWEST_CHILDREN_LOOKED = 64;
/** /proc/<pid>/stat counts start times in clock ticks: USER_HZ, 100 on every Linux port. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Signals the job's group once none of its processes is a copy of the shell still starting. */
export async function signalJob(shellPid: number, group: number): Promise<boolean> {
  const until = Date.now() + EXEC_WAIT_LIMIT_MS;
  while (Date.now() < until && startingFromShell(shellPid, group)) await jobLookPause();
  return signalGroup(group);
}

/** SIGINT to a whole process group; whether it was sent. */
export function signalGroup(group: number): boolean {
  try {
    process.kill(-group, 'SIGINT');
    return true;
  } catch {
    return false;
  }
}

export function jobLookPause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, JOB_LOOK_STEP_MS));
}

/** What a copy of the shell looks like: its program and its command line. */
interface ShellLook {
  readonly pid: number;
  readonly image: string;
  readonly commandLine: string | null;
}

function shellLookNow(shellPid: number): ShellLook | null {
  const image = readNow(() => readlinkSync(`/proc/${shellPid}/exe`));
  if (image === null) return null;
  return {
    pid: shellPid,
    image,
    commandLine: readNow(() => readFileSync(`/proc/${shellPid}/cmdline`, 'latin1')),
  };
}

/**
 * `pid` is the shell's child and still a copy of it: the shell's program and command line
 * (a `bash script.sh` the job runs has the program, not the command line).
 */
function isCopyNow(look: ShellLook, pid: number, stat: ProcStat): boolean {
  return (
    stat.ppid === look.pid &&
    readNow(() => readlinkSync(`/proc/${pid}/exe`)) === look.image &&
    readNow(() => readFileSync(`/proc/${pid}/cmdline`, 'latin1')) === look.commandLine
  );
}

/**
 * The copies of the shell it forked a moment ago, read at once (the moment matters: see
 * typed-interrupt.ts): its children that are still copies of it, and young. One of them
 * becomes a job once it has a group of its own; a job that runs its program already, or a
 * subshell job that has run for a while, is not one. `also`: a process to look at beyond
 * the children the kernel lists (that list may miss a child forked just now).
 */
export function startingCopiesNow(shellPid: number, also?: number): number[] {
  const look = shellLookNow(shellPid);
  const now = ticksNow();
  if (look === null || now === null) return [];
  const oldestTicks = now - (STARTING_AGE_LIMIT_MS * CLOCK_TICKS_PER_SECOND) / 1000;
  const pids = new Set(newestChildren(shellPid));
  if (also !== undefined) pids.add(also);
  const copies: number[] = [];
  for (const pid of pids) {
    const stat = readStatNow(pid);
    if (stat === null || !(Number(stat.startTime) >= oldestTicks)) continue;
    if (isCopyNow(look, pid, stat)) copies.push(pid);
  }
  return copies;
}

/** The clock ticks since boot now, as /proc/<pid>/stat counts when a process started. */
function ticksNow(): number | null {
  const uptime = readNow(() => readFileSync('/proc/uptime', 'latin1'));
  return uptime === null ? null : Math.floor(Number.parseFloat(uptime) * CLOCK_TICKS_PER_SECOND);
}

/**
 * A process of `group` is still a copy of the shell. The group's leader is looked at by
 * its number: the kernel's list of a process's children may miss one forked a moment ago
 * (proc(5) calls it reliable only while they are stopped), and then a copy would be
 * signalled as if it ran its program.
 */
function startingFromShell(shellPid: number, group: number): boolean {
  const look = shellLookNow(shellPid);
  if (look === null) return false;
  for (const pid of new Set([group, ...newestChildren(shellPid)])) {
    const stat = readStatNow(pid);
    if (stat?.pgrp === group && isCopyNow(look, pid, stat)) return true;
  }
  return false;
}

function newestChildren(shellPid: number): number[] {
  return childrenOf(shellPid).slice(-NEWEST_CHILDREN_LOOKED);
}

/** A /proc read that may find the process gone: null then. */
function readNow(read: () => string): string | null {
  try {
    return read();
  } catch {
    return null;
  }
}
