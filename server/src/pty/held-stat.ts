/**
 * One process's `/proc/<pid>/stat`, opened once and read again in place. The engine reads its
 * shell's stat several times a call (who holds the terminal at an end mark and after it, whether
 * the shell still runs); a read by path is four system calls and a new buffer each time, a
 * read in place one `pread`. The descriptor names the process itself, not its number: once
 * that process is gone every read fails, so a reused pid is never read in its place.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { type ProcStat, parseStat } from './proc-probe.ts';

/** A stat line is a few hundred bytes (the command name is at most 64 of them). */
const STAT_BYTES = 1024;
/** Shared by every reader: each read is synchronous and parsed before the next can run. */
const buffer = Buffer.allocUnsafe(STAT_BYTES);

export class HeldStat {
  private fd: number | null;

  constructor(readonly pid: number) {
    try {
      this.fd = openSync(`/proc/${pid}/stat`, 'r');
    } catch {
      this.fd = null;
    }
  }

  /** The process's stat now; null once it is gone (and from then on). */
  read(): ProcStat | null {
    if (this.fd === null) return null;
    try {
      const length = readSync(this.fd, buffer, 0, STAT_BYTES, 0);
      return parseStat(this.pid, buffer.toString('latin1', 0, length));
    } catch {
      this.close();
      return null;
    }
  }

  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // Closed already.
    }
    this.fd = null;
  }
}
