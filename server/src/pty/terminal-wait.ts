/**
 * Whether a process is blocked reading its terminal, read from /proc: the syscall each thread
 * is in (a read of the terminal, or a select, poll or epoll wait that includes it, read from
 * the process's memory), and the wait's own time limit. Linux only (x86-64 and arm64); every
 * read tolerates processes vanishing underneath it.
 */
import { readFileSync } from 'node:fs';
import { open, readdir, readFile, readlink, stat } from 'node:fs/promises';
import { descendants, type ProcStat, readStatNow, tasksOf } from './proc-probe.ts';

/** Syscall numbers that can block on terminal input, per architecture. */
interface SyscallTable {
  readonly read: readonly number[];
  readonly select: readonly number[];
  readonly poll: readonly number[];
  readonly epoll: readonly number[];
  /** Where each wait's own time limit is: an argument in ms, or one pointing at a struct. */
  readonly limits: Readonly<Record<number, WaitLimitArg>>;
}

interface WaitLimitArg {
  readonly arg: number;
  /** `ms`: an int (negative: none); `timespec`, `timeval`: a pointer (0: none). */
  readonly kind: 'ms' | 'timespec' | 'timeval';
}

const SYSCALLS: Record<string, SyscallTable> = {
  // x86-64: read, readv, pread64 | select, pselect6 | poll, ppoll | epoll_wait, epoll_pwait, epoll_pwait2
  x64: {
    read: [0, 19, 17],
    select: [23, 270],
    poll: [7, 271],
    epoll: [232, 281, 441],
    limits: {
      23: { arg: 4, kind: 'timeval' },
      270: { arg: 4, kind: 'timespec' },
      7: { arg: 2, kind: 'ms' },
      271: { arg: 2, kind: 'timespec' },
      232: { arg: 3, kind: 'ms' },
      281: { arg: 3, kind: 'ms' },
      441: { arg: 3, kind: 'timespec' },
    },
  },
  // arm64 (generic table): read, readv, pread64 | pselect6 | ppoll | epoll_pwait, epoll_pwait2
  arm64: {
    read: [63, 65, 67],
    select: [72],
    poll: [73],
    epoll: [22, 441],
    limits: {
      72: { arg: 4, kind: 'timespec' },
      73: { arg: 2, kind: 'timespec' },
      22: { arg: 3, kind: 'ms' },
      441: { arg: 3, kind: 'timespec' },
    },
  },
};

const POLLIN = 0x1;
const POLLFD_BYTES = 8;
/** Beyond this many fds a select/poll is not an interactive read; skip reading its memory. */
const MAX_POLLED_FDS = 4096;

export interface WaitingReader {
  readonly pid: number;
  readonly name: string;
  /**
   * The wait's own time limit (ms) when it has one (`read -t 0.5` waits in a select that
   * returns by itself); undefined: it waits until input comes.
   */
  readonly limitMs?: number;
}

/**
 * The foreground process of the shell's terminal (`shell`: its stat, read just now) that is
 * blocked reading the terminal `ttyPath`, or null. Only processes in the foreground group count: a background job
 * reading the terminal is stopped by the kernel, not waiting.
 */
export async function findWaitingReader(
  shell: ProcStat | null,
  ttyPath: string,
): Promise<WaitingReader | null> {
  const table = SYSCALLS[process.arch];
  if (!table) return null;
  if (!shell || shell.tpgid <= 0) return null;
  for (const pid of descendants(shell.pid)) {
    const stat = pid === shell.pid ? shell : readStatNow(pid);
    if (!stat || stat.pgrp !== shell.tpgid) continue;
    const wait = await blockedOnTerminal(pid, ttyPath, table);
    if (wait) {
      const name = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
      return { pid, name: name || String(pid), ...wait };
    }
  }
  return null;
}

/** Whether the shell process itself (`shell`: its stat), not a program it runs, waits on `ttyPath`. */
export async function shellReadsTerminal(
  shell: ProcStat | null,
  ttyPath: string,
): Promise<boolean> {
  return shell !== null && (await findWaitingReader(shell, ttyPath))?.pid === shell.pid;
}

/** A thread of `pid` blocked reading the terminal, with its wait's limit; null: none. */
async function blockedOnTerminal(
  pid: number,
  ttyPath: string,
  table: SyscallTable,
): Promise<{ limitMs?: number } | null> {
  // The threads' list read at once (it never waits on the process); what each thread is in
  // the middle of is read asynchronously: the kernel reads it under the lock an exec holds.
  for (const tid of tasksOf(pid)) {
    const text = await readFile(`/proc/${pid}/task/${tid}/syscall`, 'latin1').catch(() => '');
    const parts = text.trim().split(' ');
    const nr = Number(parts[0]);
    if (!Number.isInteger(nr) || parts.length < 3) continue; // "running" or unreadable
    const args = parts.slice(1).map((hex) => BigInt(hex));
    if (await syscallReadsTerminal(pid, nr, args, ttyPath, table)) {
      const limitMs = await waitLimitMs(pid, nr, args, table);
      return limitMs === undefined ? {} : { limitMs };
    }
  }
  return null;
}

/** How long the wait in syscall `nr` lasts before it returns by itself (ms); undefined: no limit. */
async function waitLimitMs(
  pid: number,
  nr: number,
  args: bigint[],
  table: SyscallTable,
): Promise<number | undefined> {
  const limit = table.limits[nr];
  if (!limit) return undefined;
  const value = args[limit.arg] ?? 0n;
  if (limit.kind === 'ms') {
    const ms = Number(BigInt.asIntN(32, value));
    return ms < 0 ? undefined : ms;
  }
  if (value === 0n) return undefined;
  const struct = await readMemory(pid, value, 16);
  if (!struct) return undefined;
  const fraction = Number(struct.readBigInt64LE(8));
  return (
    Number(struct.readBigInt64LE(0)) * 1000 + fraction / (limit.kind === 'timespec' ? 1e6 : 1e3)
  );
}

async function syscallReadsTerminal(
  pid: number,
  nr: number,
  args: bigint[],
  ttyPath: string,
  table: SyscallTable,
): Promise<boolean> {
  const arg = (i: number) => args[i] ?? 0n;
  if (table.read.includes(nr)) return isTerminalFd(pid, Number(arg(0)), ttyPath);
  if (!table.select.includes(nr) && !table.poll.includes(nr) && !table.epoll.includes(nr)) {
    return false;
  }
  const ttyFds = await terminalFds(pid, ttyPath);
  if (ttyFds.size === 0) return false;
  if (table.select.includes(nr)) {
    const nfds = Number(arg(0));
    if (nfds <= 0 || nfds > MAX_POLLED_FDS || arg(1) === 0n) return false;
    const set = await readMemory(pid, arg(1), Math.ceil(nfds / 8));
    if (!set) return false;
    for (const fd of ttyFds) {
      if (fd < nfds && ((set[fd >> 3] ?? 0) & (1 << (fd & 7))) !== 0) return true;
    }
    return false;
  }
  if (table.poll.includes(nr)) {
    const nfds = Number(arg(1));
    if (nfds <= 0 || nfds > MAX_POLLED_FDS) return false;
    const fds = await readMemory(pid, arg(0), nfds * POLLFD_BYTES);
    if (!fds) return false;
    for (let i = 0; i + POLLFD_BYTES <= fds.length; i += POLLFD_BYTES) {
      if (ttyFds.has(fds.readInt32LE(i)) && (fds.readInt16LE(i + 4) & POLLIN) !== 0) return true;
    }
    return false;
  }
  const info = await readFile(`/proc/${pid}/fdinfo/${Number(arg(0))}`, 'latin1').catch(() => '');
  for (const match of info.matchAll(/^tfd:\s+(\d+)\s+events:\s+([0-9a-f]+)/gm)) {
    if (ttyFds.has(Number(match[1])) && (Number.parseInt(match[2] ?? '0', 16) & POLLIN) !== 0) {
      return true;
    }
  }
  return false;
}

/**
 * The process is blocked reading input now (in a read, select, poll or epoll wait), read at
 * once: a shell doing so sits at its prompt, and is not running or starting a command. False
 * when it runs, waits for something else (its job), or cannot be read.
 */
export function waitsForInputNow(pid: number): boolean {
  const table = SYSCALLS[process.arch];
  if (!table) return false;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/syscall`, 'latin1');
  } catch {
    return false;
  }
  const nr = Number(text.trim().split(' ')[0]);
  return (
    table.read.includes(nr) ||
    table.select.includes(nr) ||
    table.poll.includes(nr) ||
    table.epoll.includes(nr)
  );
}

/** /dev/tty's device number (5, 0): whatever terminal it stands for, it is the caller's. */
const DEV_TTY_RDEV = (5 << 8) | 0;

/**
 * The fd is the shell's terminal: by path where the process sees the host's /dev, else by
 * device number (in a sandbox the terminal is bind-mounted, e.g. onto /dev/console, so
 * its path differs while the device is the same).
 */
async function isTerminalFd(pid: number, fd: number, ttyPath: string): Promise<boolean> {
  const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
  if (target === ttyPath || target === '/dev/tty') return true;
  if (!target.startsWith('/dev/')) return false;
  const [device, tty] = await Promise.all([
    stat(`/proc/${pid}/fd/${fd}`).catch(() => null),
    stat(ttyPath).catch(() => null),
  ]);
  if (!device?.isCharacterDevice()) return false;
  return device.rdev === DEV_TTY_RDEV || (tty !== null && device.rdev === tty.rdev);
}

async function terminalFds(pid: number, ttyPath: string): Promise<Set<number>> {
  const fds = new Set<number>();
  const names = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  await Promise.all(
    names.map(async (name) => {
      if (await isTerminalFd(pid, Number(name), ttyPath)) fds.add(Number(name));
    }),
  );
  return fds;
}

async function readMemory(pid: number, address: bigint, length: number): Promise<Buffer | null> {
  const handle = await open(`/proc/${pid}/mem`, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const buffer = Buffer.alloc(length);
    // User-space addresses fit in 48 bits on x86-64 and arm64, well inside a double.
    const { bytesRead } = await handle.read(buffer, 0, length, Number(address));
    return bytesRead === length ? buffer : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}
