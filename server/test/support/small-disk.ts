/**
 * A real small disk for fault tests: a tmpfs mounted (as root) at a fresh directory, that a
 * test fills to ENOSPC, empties, or covers with a read-only bind mount (EROFS). No mocks: the server sees the
 * kernel's own errors. Unmounted by `remove`.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FILL_CHUNK_BYTES = 64 * 1024;
const FILLER = 'filler';
/** Tries at making the read-only bind (see readOnly), and the pause between them. */
const READ_ONLY_TRIES = 20;
const READ_ONLY_RETRY_MS = 25;

export interface SmallDisk {
  /** The mount point (empty at first). */
  readonly dir: string;
  /** Writes a file until the disk says ENOSPC. */
  fill(): void;
  /** Removes the filler: space is back. */
  empty(): void;
  /**
   * Lays a read-only view over the disk: every new open for writing fails with EROFS (files
   * open already, like the history database's, keep writing: a disk remounted read-only
   * under a running server refuses to go while they are open).
   */
  readOnly(): void;
  readWrite(): void;
  /** Unmounts and removes the mount point. */
  remove(): void;
}

/** Why a tmpfs cannot be mounted here (not root, no mount), or null when it can. */
export function smallDiskUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const probe = mkdtempSync(join(tmpdir(), 'jumpseat-disk-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return `mount -t tmpfs failed: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

export function mountSmallDisk(parent: string, sizeBytes: number): SmallDisk {
  const dir = join(parent, 'data');
  execFileSync('mkdir', ['-p', dir]);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=700`, 'tmpfs', dir]);
  const filler = join(dir, FILLER);
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(FILL_CHUNK_BYTES, 0x78);
      try {
        for (let size = FILL_CHUNK_BYTES; size >= 1; size = Math.floor(size / 2)) {
          // Bounded: the disk is sizeBytes, so each size is written at most that often.
          for (let i = 0; i <= sizeBytes / size; i++) writeSync(fd, chunk, 0, size);
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        // Smaller pieces may still fit: tmpfs counts pages.
        for (let size = FILL_CHUNK_BYTES / 2; size >= 1; size = Math.floor(size / 2)) {
          try {
            for (let i = 0; i <= sizeBytes / size; i++) writeSync(fd, chunk, 0, size);
          } catch {
            // Full at this size; try a smaller one.
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    empty() {
      unlinkSync(filler);
    },
    readOnly() {
      for (let attempt = 1; ; attempt++) {
        execFileSync('mount', ['--bind', dir, dir]);
        try {
          execFileSync('mount', ['-o', 'remount,bind,ro', dir], { stdio: 'pipe' });
          return;
        } catch (error) {
          // A file the server opened for writing through the new bind, between the two
          // steps, keeps it writable (EBUSY: "mount point is busy"): that bind is let go and
          // made again; the file keeps writing through the one let go.
          execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
          if (attempt === READ_ONLY_TRIES) throw error;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, READ_ONLY_RETRY_MS);
        }
      }
    },
    readWrite() {
      execFileSync('umount', [dir]);
    },
    remove() {
      try {
        execFileSync('umount', [dir], { stdio: 'pipe' });
      } catch {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      }
      rmSync(parent, { recursive: true, force: true });
    },
  };
}
