/**
 * Replacing a small file so that after a crash or a power cut it holds either the old content
 * or the new one, whole: written to a temporary file beside it, flushed to disk (fsync),
 * renamed over the old one, and then the directory flushed too, so the rename itself is on
 * disk. A rename alone orders nothing: after a crash, ext4 and xfs may show the new name with
 * none of its data (an empty tokens.json, and every minted token gone).
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** Never through a link planted at the temporary name. */
const TEMPORARY_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/** Writes `text` to `path` (created with `mode`, or replaced) as described above. */
export function replaceFileDurably(path: string, text: string, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    const file = openSync(temporary, TEMPORARY_FLAGS, mode);
    try {
      writeFileSync(file, text);
      // The mode given to open only applies when the file is created.
      fchmodSync(file, mode);
      fsyncSync(file);
    } finally {
      closeSync(file);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  flushDirectory(dirname(path));
}

/** Renames `from` to `to` (no replacing wanted: the caller checks) and flushes the directory. */
export function renameDurably(from: string, to: string): void {
  renameSync(from, to);
  flushDirectory(dirname(to));
}

function flushDirectory(path: string): void {
  const directory = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
}
