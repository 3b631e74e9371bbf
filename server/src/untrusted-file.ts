/**
 * Opening a file at a path a shell may have changed (in its writable directory, or anywhere
 * an unsandboxed shell reaches): never through a symbolic link, never blocking on a FIFO or
 * a device, and only a regular file with one name and an owner we expect. Anything else is
 * refused with the reason, so a planted link, FIFO, socket, directory or hard link can
 * neither redirect the server nor stall its event loop.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/** O_NONBLOCK: opening a FIFO or a terminal never waits for the other end. */
const UNTRUSTED_READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The path is not a plain file of an expected owner: what was found there instead. */
export class UntrustedFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'UntrustedFileError';
  }
}

/** Why `stats` is not a file we may read (null when it is): `owners` are the uids accepted. */
function refusal(stats: Stats, owners: readonly number[]): string | null {
  if (!stats.isFile()) return 'not a regular file';
  // A second name means someone linked a file of ours (or of anyone) into this place.
  if (stats.nlink !== 1) return 'a file with more than one name (a hard link)';
  if (!owners.includes(stats.uid))
    return `owned by uid ${stats.uid}, not by ${owners.join(' or ')}`;
  return null;
}

/** The uid files the server itself makes belong to. */
export function serverUid(): number {
  return process.getuid?.() ?? 0;
}

function errnoReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  // ELOOP: O_NOFOLLOW met a symbolic link; ENXIO: a unix socket cannot be opened.
  if (code === 'ELOOP') return 'a symbolic link';
  if (code === 'ENXIO') return 'a socket';
  return code ?? String(error);
}

/**
 * Opens `path` for reading (asynchronously: the event loop never waits on the disk) and
 * returns the handle and its size; throws UntrustedFileError when it is not a plain file of
 * one of `owners`, or is gone.
 */
export async function openUntrusted(
  path: string,
  owners: readonly number[] = [serverUid()],
): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle;
  try {
    handle = await open(path, UNTRUSTED_READ_FLAGS);
  } catch (error) {
    throw new UntrustedFileError(path, errnoReason(error));
  }
  try {
    const stats = await handle.stat();
    const why = refusal(stats, owners);
    if (why !== null) throw new UntrustedFileError(path, why);
    return { handle, size: stats.size };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The first `maxBytes` of a small file at `path`, read synchronously (for a few bytes on a
 * rare path, fewer syscalls than a round trip to the thread pool); null when it is not a
 * plain file of one of `owners` or is gone. Never blocks: see UNTRUSTED_READ_FLAGS.
 */
export function readSmallUntrusted(
  path: string,
  maxBytes: number,
  owners: readonly number[] = [serverUid()],
): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, UNTRUSTED_READ_FLAGS);
  } catch {
    return null;
  }
  try {
    if (refusal(fstatSync(fd), owners) !== null) return null;
    const buffer = Buffer.alloc(maxBytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, maxBytes, 0));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
