/**
 * A shell's terminal opened by the server, only while it is still that shell's. A terminal's
 * path (`/dev/pts/N`) names it only while some process holds it: once a shell has ended, its
 * number goes to the next terminal opened, and an `stty -F /dev/pts/N` meant for the ended
 * shell (a hand-back still running as it closed) switched the echo off under a person who had
 * just taken the controls of the new one. An open descriptor pins the number (it is freed when
 * the last one closes), so the terminal is opened first, then checked against what the PTY's
 * process holds on its stdin, and used through that descriptor only.
 */
import { constants } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { startTimeOf } from './proc-probe.ts';

/** Opens a shell's terminal, or resolves null when it is not that shell's any more. */
export type TerminalOpener = () => Promise<FileHandle | null>;

/**
 * Opens `ttyPath` if it is the terminal on the stdin of the PTY's process `ptyPid` (started at
 * `ptyStartTime`, so a reused pid does not count). Never made the server's controlling
 * terminal, never blocks.
 */
export async function openOwnTerminal(
  ttyPath: string,
  ptyPid: number,
  ptyStartTime: string | null,
): Promise<FileHandle | null> {
  if (ttyPath === '' || ptyStartTime === null) return null;
  let handle: FileHandle;
  try {
    handle = await open(ttyPath, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const [opened, held] = await Promise.all([handle.stat(), stat(`/proc/${ptyPid}/fd/0`)]);
    if (
      opened.isCharacterDevice() &&
      opened.rdev === held.rdev &&
      startTimeOf(ptyPid) === ptyStartTime
    ) {
      return handle;
    }
  } catch {
    // The PTY's process is gone (or its stdin with it): the terminal is not the shell's.
  }
  await handle.close();
  return null;
}
