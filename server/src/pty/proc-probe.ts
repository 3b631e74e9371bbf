/**
 * Reads /proc to learn about a shell's processes: their stat (which process group holds the
 * terminal's foreground), and which processes belong to a shell's tree so that a reset can
 * end them all. Whether one is blocked reading the terminal is terminal-wait.ts's.
 * Linux only; every read tolerates processes vanishing underneath it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface ProcStat {
  readonly pid: number;
  /** R, S, D, Z, T, … as in proc(5). */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  readonly tpgid: number;
  /** Clock ticks after boot when it started: with the pid, names one process for good. */
  readonly startTime: string;
}

export async function readStat(pid: number): Promise<ProcStat | null> {
  const text = await readFile(`/proc/${pid}/stat`, 'latin1').catch(() => null);
  return text ? parseStat(pid, text) : null;
}

/** The fields of `/proc/<pid>/stat` text that the engine uses. */
export function parseStat(pid: number, text: string): ProcStat {
  // The command name is in parentheses and may itself contain spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: fields[0] ?? '?',
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    tpgid: Number(fields[5]),
    startTime: fields[19] ?? '',
  };
}

/**
 * `readStat(pid).startTime`, read at once: taken when a process is spawned, it later tells
 * that process from whatever reuses its number after it was reaped.
 */
export function startTimeOf(pid: number): string | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * `readStat`, read at once: a few hundred bytes of /proc that never wait on the process.
 * Ending a thousand shells at a stop reads these by the thousand, and each asynchronous read
 * is four round trips to a thread pool of four (open, stat, read, close) behind all the others.
 */
export function readStatNow(pid: number): ProcStat | null {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return null;
  }
}

/**
 * How many read calls the process has made (`syscr` in `/proc/<pid>/io`, all its threads),
 * read at once; null when it is gone or cannot be read. A read blocked on the terminal is
 * counted when it returns, so a change after input was typed says the input was taken.
 */
export function readCallsNow(pid: number): number | null {
  try {
    const match = /^syscr:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'latin1'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * The shell and every descendant still alive, found through the children lists: read at once
 * (a level after a level of asynchronous reads waited behind every other shell's at a stop of
 * many; these files are small and never wait on the process).
 */
export function descendants(rootPid: number): number[] {
  const found: number[] = [];
  let level = [rootPid];
  while (level.length > 0) {
    found.push(...level);
    level = level.flatMap(childrenOf);
  }
  return found;
}

/** The thread ids of `pid` (none when it is gone), read at once. */
export function tasksOf(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

/** The children of every thread of `pid` (none when it is gone), read at once. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const tid of tasksOf(pid)) {
    let list = '';
    try {
      list = readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1');
    } catch {
      continue;
    }
    for (const child of list.split(' ')) if (child.trim()) children.push(Number(child));
  }
  return children;
}

/** At most this many processes named by `treeSummary`. */
const SUMMARY_MAX_PROCESSES = 12;

/**
 * `rootPid` and its descendants as `name (state, where it waits)`, breadth first, for a start
 * that hangs: `bash (S, do_wait), bwrap (S, do_wait), perl (D, lock_mount)`. The kernel's
 * wait channel is left out where it says nothing (`0`, or not readable); '' when it is gone.
 */
export function treeSummary(rootPid: number): string {
  const named: string[] = [];
  for (const pid of descendants(rootPid).slice(0, SUMMARY_MAX_PROCESSES)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      continue;
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const { state } = parseStat(pid, stat);
    let wchan = '';
    try {
      wchan = readFileSync(`/proc/${pid}/wchan`, 'latin1').trim();
    } catch {}
    named.push(`${name} (${wchan === '' || wchan === '0' ? state : `${state}, ${wchan}`})`);
  }
  return named.join(', ');
}

/**
 * The host's pid of the process that calls itself `nsPid` in its own PID namespace, among
 * `rootPid` and its descendants (a sandboxed shell is a grandchild of the PTY's process);
 * null when none does. Without a namespace both numbers are the same.
 */
export async function hostPidOf(rootPid: number, nsPid: number): Promise<number | null> {
  for (const pid of descendants(rootPid)) {
    const status = await readFile(`/proc/${pid}/status`, 'latin1').catch(() => '');
    const ids = /^NSpid:\s*(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/);
    if (ids && Number(ids[ids.length - 1]) === nsPid) return pid;
  }
  return null;
}

/** Every live process whose session is `sid` (found by scanning /proc); zombies, which no
 *  signal reaches, are left out. */
export async function sessionMembers(sid: number): Promise<number[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const members: number[] = [];
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const stat = await readStat(Number(name));
        if (stat && stat.session === sid && stat.state !== 'Z') members.push(stat.pid);
      }),
  );
  return members;
}

/** The program a process runs now, as far as /proc tells one `exec` from the next. */
export interface ProcProgram {
  /** Its name, as the kernel keeps it (the file it runs, whatever argv[0] says). */
  readonly name: string;
  /** Its command line's words, argv[0] first. */
  readonly words: readonly string[];
  /**
   * Where its stack starts: placed at random by each `exec` (address space layout
   * randomisation), so it tells two runs of the same command line apart. '0' where the
   * kernel hides it (no right to trace the process).
   */
  readonly stack: string;
}

/**
 * What `pid` runs now (`/proc/<pid>/comm`, `cmdline` and its stat's `startstack`), read at once (an
 * asynchronous read waits behind others, and the program may have changed by its end); null
 * when gone.
 */
export function readProgramNow(pid: number): ProcProgram | null {
  let line: string;
  let stat: string;
  let name: string;
  try {
    line = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
  const words = line.split('\0');
  if (words[words.length - 1] === '') words.pop();
  // startstack is field 28; fields[0] here is field 3 (the state).
  const stack = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[25] ?? '0';
  return { name, words, stack };
}

/** The terminal a process has on fd 0 (the PTY slave path), or null. */
export async function terminalOf(pid: number): Promise<string | null> {
  return readlink(`/proc/${pid}/fd/0`).catch(() => null);
}
