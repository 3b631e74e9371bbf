/**
 * Room kept on the data dir for new shells' private dirs. A shell's private dir lives under
 * the data dir (issue 21.5), so a full data dir would refuse every new shell, while calls of
 * the shells already there go on (their command files are written in place: shell-files.ts).
 * A file of zeros is kept as a reserve: when the file system is nearly full, a slice of it is
 * given back just before a private dir is made, so the next shells still start while the
 * operator frees space; once there is room again, the reserve grows back to its size.
 * A read-only data dir makes no new dir whatever is kept: that refusal stays a 503.
 */
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  statfsSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** The reserve's full size: some 50 shells' private dirs (each a few pages). */
const RESERVE_BYTES = 4 * 1024 * 1024;
/** Given back at a time, and the free space below which it is: one shell's dir and more. */
const SLICE_BYTES = 80 * 1024;
const RESERVE_NAME = '.reserve';
const CHUNK = Buffer.alloc(64 * 1024);
/** Never through a link or into a FIFO: the server's own file, in a directory it alone writes. */
const GROW_FLAGS =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  constants.O_NOFOLLOW |
  constants.O_NONBLOCK;

export class SpaceReserve {
  private readonly path: string;

  constructor(dir: string) {
    this.path = join(dir, RESERVE_NAME);
  }

  /** Before a private dir is made: room for it given back, or the reserve refilled. */
  beforeUse(): void {
    try {
      const { bavail, bsize } = statfsSync(this.path.slice(0, -RESERVE_NAME.length - 1));
      const free = bavail * bsize;
      const size = this.size();
      if (free < SLICE_BYTES && size > 0) {
        this.resize(Math.max(0, size - SLICE_BYTES));
      } else if (size < RESERVE_BYTES && free > 2 * RESERVE_BYTES) {
        this.grow(size);
      }
    } catch {
      // A data dir that cannot even be looked at refuses the dir itself, and says why there.
    }
  }

  private size(): number {
    try {
      const stat = lstatSync(this.path);
      return stat.isFile() ? stat.size : 0;
    } catch {
      return 0;
    }
  }

  private resize(bytes: number): void {
    const fd = openSync(
      this.path,
      constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      if (fstatSync(fd).isFile()) ftruncateSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
  }

  /** Written, not truncated up: a sparse file would hold no room at all. */
  private grow(from: number): void {
    const fd = openSync(this.path, GROW_FLAGS, 0o600);
    try {
      if (!fstatSync(fd).isFile()) return;
      for (let size = from; size < RESERVE_BYTES; size += CHUNK.length) writeSync(fd, CHUNK);
    } finally {
      closeSync(fd);
    }
  }
}
