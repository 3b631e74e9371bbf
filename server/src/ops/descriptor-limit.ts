/**
 * The server's open-file limit and the number of shells it allows. Every shell holds its
 * PTY's master for its whole life, and more on the way (its agent's connection, a call's
 * saved output, the /proc reads that end it), so RLIMIT_NOFILE bounds the shells one server
 * can run. The soft limit is raised to the hard one at start, and past the shells that fit a
 * new one is refused with a reason, never an EMFILE in whatever part ran out first.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Descriptors one shell costs at most, measured: an idle shell holds three (its PTY master, its
 * command file, held for writing in place, and its stat, held for reading in place; 20 shells
 * added 61 to the server's table, sandboxed or not); a call adds its agent's HTTP connection
 * and its saved output's file, and ending it the /proc reads, one at a time.
 */
export const DESCRIPTORS_PER_SHELL = 5;
/**
 * Kept for the server itself: stdio, the database and its journal, the recording worker,
 * the listening socket, viewers' and dashboards' sockets, libuv's own (epoll, eventfds).
 * Measured: an idle server holds about 40, and its start did not finish under a limit of
 * 136 on a busy host (it did under 264).
 */
export const RESERVED_DESCRIPTORS = 256;

export interface DescriptorLimit {
  readonly soft: number;
  readonly hard: number;
}

/** RLIMIT_NOFILE of this process, from /proc/self/limits; null where it cannot be read. */
export function readDescriptorLimit(): DescriptorLimit | null {
  let text: string;
  try {
    text = readFileSync('/proc/self/limits', 'latin1');
  } catch {
    return null;
  }
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!match) return null;
  const value = (field: string | undefined) =>
    field === 'unlimited' ? Number.POSITIVE_INFINITY : Number(field);
  return { soft: value(match[1]), hard: value(match[2]) };
}

/**
 * Raises the soft limit to the hard one. Node has no setrlimit; util-linux's `prlimit` sets
 * it on our own pid. Returns the limit in force afterwards (unchanged where prlimit is
 * missing or refused).
 */
export function raiseDescriptorLimit(prlimit = 'prlimit'): DescriptorLimit | null {
  const before = readDescriptorLimit();
  if (before === null || before.soft >= before.hard || !Number.isFinite(before.hard)) {
    return before;
  }
  try {
    execFileSync(
      prlimit,
      ['--pid', String(process.pid), `--nofile=${before.hard}:${before.hard}`],
      {
        stdio: 'ignore',
      },
    );
  } catch {
    // Not installed or not permitted: the soft limit stays, and so does the capacity it gives.
  }
  return readDescriptorLimit();
}

/** How many shells fit in `limit`'s soft limit; unbounded where it is unknown. */
export function shellCapacity(limit: DescriptorLimit | null): number {
  if (limit === null || !Number.isFinite(limit.soft)) return Number.POSITIVE_INFINITY;
  return Math.max(0, Math.floor((limit.soft - RESERVED_DESCRIPTORS) / DESCRIPTORS_PER_SHELL));
}

/** The banner's line: what the open-file limit allows. */
export function capacityLine(limit: DescriptorLimit | null): string {
  if (limit === null) return 'shells: open-file limit unknown; not bounded by it';
  const capacity = shellCapacity(limit);
  const raised = limit.soft < limit.hard ? ` (hard limit ${limit.hard} not reached)` : '';
  return `capacity: ${capacity} shells (open files: ${limit.soft}${raised}; ${DESCRIPTORS_PER_SHELL} per shell, ${RESERVED_DESCRIPTORS} for the server)`;
}
