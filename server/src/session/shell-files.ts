/**
 * Each shell's private directory, and the only way the server writes into it. The server
 * never opens a path the shell can change: its own files (the integration, each call's
 * command) live in a directory only the server writes, which a sandbox sees read-only;
 * what the shell itself must write (its trap texts, the mark that it took a command) goes
 * to a sub-directory of its own, which the server only ever reads through
 * `readSmallUntrusted` and removes once the shell is gone.
 *
 *   <data dir>/shells/<run>/<random>/          the server's (mode 700; read-only in a sandbox)
 *     integration.bash | integration.ps1, command
 *     shell/                                   the shell's (trap texts, `taken`)
 *
 * `<run>` names one server process (pid and start time), so a start sweeps exactly what
 * killed runs of this data dir left behind, never a live server's shells.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { JUMPSEAT_ERR_SHELL_UNAVAILABLE, JumpseatError } from '../errors.ts';
import { commandFileContent, TAKEN_MARK_BYTES } from '../pty/dialect.ts';
import { callNonce } from '../pty/marks.ts';
import { parseStat } from '../pty/proc-probe.ts';
import { readSmallUntrusted, serverUid } from '../untrusted-file.ts';
import { SpaceReserve } from './space-reserve.ts';

/** The data dir's folder of private dirs. */
export const PRIVATE_DIRS_NAME = 'shells';
/** The sub-directory a shell may write. */
export const SHELL_WRITABLE_NAME = 'shell';
/** In the shell's sub-directory: the nonce of the last call whose command the shell took,
 *  and `;<status>` once that command ended (bash). */
const TAKEN_FILE_NAME = 'taken';
/**
 * Other users on the host never read a command or a nonce. Files are group-readable: a shell
 * that runs as its own user (the server is root) reads them through the group the launcher
 * gives the directory (launch/shell-ownership.ts); otherwise the directory stays 0700 and the
 * group bit reaches no one.
 */
const DIR_MODE = 0o700;
const FILE_MODE = 0o640;
const RANDOM_BYTES = 6;
/**
 * What a cancelled call's command file says: nothing to run. A space, so that the shell's
 * history (which ignores lines starting with a space) and `set -x` show nothing of it.
 */
const CANCELLED_COMMAND = ' ';
/** A stop's removal of its run's private dirs that takes longer is left to the next start. */
const RUN_REMOVAL_TIMEOUT_MS = 5000;
/** A run's folder name: `<pid>-<start time in clock ticks>`, as /proc/<pid>/stat says. */
const RUN_NAME = /^(\d+)-(\d+)$/;
/**
 * Every command file is padded with NULs (where each integration stops reading) to this size,
 * and the server keeps the current one open: when the data dir is full (ENOSPC) or turned
 * read-only (EROFS), the next command of up to this size is written over the held file in
 * place, which needs no new space and no new open, so calls go on through a storage fault.
 */
const COMMAND_RESERVE_BYTES = 8192;
/** The errors of a data dir that takes no new writes for now (see ops/storage-health.ts). */
const STORAGE_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);
/** Create-only, never through a link: the name is fresh in a directory only we write. */
const CREATE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** When process `pid` started (field 22 of its stat), or null when there is no such process. */
function startTicks(pid: number | 'self'): string | null {
  try {
    return parseStat(0, readFileSync(`/proc/${pid}/stat`, 'latin1')).startTime || null;
  } catch {
    return null;
  }
}

/** The private dirs of one server run, under its data dir. */
export class PrivateDirs {
  readonly root: string;
  private readonly run: string;
  private runMade = false;
  private readonly reserve: SpaceReserve;

  constructor(dataDir: string) {
    this.root = join(dataDir, PRIVATE_DIRS_NAME);
    this.reserve = new SpaceReserve(this.root);
    this.run = `${process.pid}-${startTicks('self') ?? '0'}`;
  }

  /**
   * A new private dir for one shell; a data dir that refuses it is said as such.
   * `shellMayReplace`: the shell can rename or remove the server's files in it (unsandboxed).
   */
  create(shellMayReplace: boolean): ShellFiles {
    const dir = join(this.root, this.run, randomBytes(RANDOM_BYTES).toString('hex'));
    try {
      if (!this.runMade) mkdirSync(this.root, { recursive: true, mode: DIR_MODE });
      this.reserve.beforeUse();
      if (!this.runMade) {
        mkdirSync(join(this.root, this.run), { recursive: true, mode: DIR_MODE });
        this.runMade = true;
      }
      mkdirSync(dir, { mode: DIR_MODE });
      mkdirSync(join(dir, SHELL_WRITABLE_NAME), { mode: DIR_MODE });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new JumpseatError(
        JUMPSEAT_ERR_SHELL_UNAVAILABLE,
        `cannot make the shell's private directory in ${this.root} (${code})`,
      );
    }
    return new ShellFiles(dir, shellMayReplace);
  }

  /**
   * Removes this run's private dirs, every shell's, once all of them ended (a stop). One `rm`
   * does it: a thousand recursive removals inside the server are tens of thousands of round
   * trips to its thread pool. Never rejects; what is left is swept at the next start.
   */
  removeRun(): Promise<void> {
    if (!this.runMade) return Promise.resolve();
    const dir = join(this.root, this.run);
    return new Promise((resolve) => {
      // rm never follows a symbolic link a shell planted: it removes the link.
      execFile('rm', ['-rf', '--', dir], { timeout: RUN_REMOVAL_TIMEOUT_MS }, (error) => {
        // No `rm` to run: removed here. One that failed or ran out of time (a shell that made
        // a million files) is not repeated by the stop: the next start's sweep finishes it.
        if (error !== null && (error as NodeJS.ErrnoException).code === 'ENOENT')
          rm(dir, { recursive: true, force: true }).then(resolve, () => resolve());
        else resolve();
      });
    });
  }

  /**
   * Removes what runs of this data dir that are no longer alive left (a server killed with
   * its shells); returns how many shells' dirs went. Called at start, after leftover
   * processes were ended, so nothing writes there any more.
   */
  sweep(): number {
    let runs: string[];
    try {
      runs = readdirSync(this.root);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const run of runs) {
      const match = RUN_NAME.exec(run);
      if (!match || run === this.run) continue;
      const [, pid = '', ticks = ''] = match;
      if (startTicks(Number(pid)) === ticks) continue; // that server still runs
      const dir = join(this.root, run);
      try {
        removed += readdirSync(dir).length;
      } catch {
        // Unreadable: removed all the same.
      }
      // rm never follows a symbolic link a shell planted: it removes the link.
      rmSync(dir, { recursive: true, force: true });
    }
    return removed;
  }
}

/** One shell's private dir (see the module comment). */
export class ShellFiles {
  /** The server's part; the shell may read it. */
  readonly dir: string;
  /** The shell's writable part. */
  readonly shellDir: string;
  readonly commandFile: string;
  /** Where the shell writes the nonce of the call whose command it took. */
  readonly takenFile: string;
  private lastNonce = '';
  /** The current command file, kept open for writes in place during a storage fault. */
  private held: number | null = null;
  /** Device and inode of the held file (see holdsPath). */
  private heldIdentity = '';

  /** `shellMayReplace`: the shell can rename or remove the server's files (unsandboxed). */
  constructor(
    dir: string,
    private readonly shellMayReplace: boolean,
  ) {
    this.dir = dir;
    this.shellDir = join(dir, SHELL_WRITABLE_NAME);
    this.commandFile = join(dir, 'command');
    this.takenFile = join(this.shellDir, TAKEN_FILE_NAME);
  }

  /**
   * Writes `text` as `name` in the server's part and returns its path: created under a
   * fresh name with O_EXCL|O_NOFOLLOW, then renamed into place, so a reader sees the old
   * file or the new one, never half of one (four syscalls, on a call's critical path).
   */
  write(name: string, text: string): string {
    closeSync(this.replace(name, Buffer.from(text)));
    return join(this.dir, name);
  }

  /** Writes a call's command file (see commandFileContent); `nonce` is the call's. */
  writeCommand(nonce: string, content: string): void {
    this.deliverCommand(content, true);
    this.lastNonce = nonce;
  }

  /**
   * Replaces the command of a call not started yet with an empty command under a new call
   * nonce, in one rename: the shell reads either the old file whole (the old nonce's start
   * mark says the command runs after all) or the new one (its start mark says it never
   * will). Returns the new nonce. (During a storage fault the write is in place, and a shell
   * reading at that very moment may take the cancelled text under the old nonce: the
   * command then still never runs.)
   */
  cancelCommand(): string {
    const nonce = callNonce();
    this.deliverCommand(commandFileContent(nonce, CANCELLED_COMMAND), false);
    this.lastNonce = nonce;
    return nonce;
  }

  /**
   * The next command, written over the held command file in place: one `pwrite` of a page
   * cache the shell reads, where a new file costs an open, a rename, and the close that frees
   * the old inode (the largest part of a call's server time on ext4; see ENGINE-NOTES.md).
   * Only a call's command goes in place: by then the shell has finished reading the last one
   * (its start mark says so, or the call that typed it ended without one and the shell was
   * reset), so nobody reads the file as it changes. A cancel still replaces the file whole,
   * and a file that is no longer the one held (a shell outside a sandbox removed or replaced
   * it) is replaced as before.
   */
  private deliverCommand(content: string, inPlace: boolean): void {
    const length = Buffer.byteLength(content);
    if (length < COMMAND_RESERVE_BYTES) {
      commandScratch.write(content);
      commandScratch[length] = 0;
      // In place, only the command and its NUL: every integration stops reading at the first
      // NUL, and what lies past it in this shell's own file is an earlier command of its own.
      if (inPlace && this.held !== null && this.holdsPath()) {
        writeSync(this.held, commandScratch, 0, length + 1, 0);
        return;
      }
      // A new file is the reserve's size, NULs past the command: the buffer is shared by every
      // shell, and no other shell's command may reach this file.
      commandScratch.fill(0, length);
    }
    const padded = length < COMMAND_RESERVE_BYTES ? commandScratch : Buffer.from(`${content}\0`);
    try {
      const fd = this.replace('command', padded);
      if (this.held !== null) closeSync(this.held);
      this.held = fd;
      this.heldIdentity = identityOf(fstatSync(fd));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (
        !STORAGE_FAULTS.has(code) ||
        this.held === null ||
        padded.length > COMMAND_RESERVE_BYTES
      ) {
        throw error;
      }
      writeSync(this.held, padded, 0, padded.length, 0);
    }
  }

  /**
   * The command file at its path is still the one held open: always in a sandbox, where the
   * shell sees this dir read-only; else one lstat.
   */
  private holdsPath(): boolean {
    if (!this.shellMayReplace) return true;
    try {
      return identityOf(lstatSync(this.commandFile)) === this.heldIdentity;
    } catch {
      return false;
    }
  }

  /** Writes `bytes` under a fresh name, renames it to `name`, and returns its open fd. */
  private replace(name: string, bytes: Buffer): number {
    const path = join(this.dir, name);
    const temp = join(this.dir, `.${name}.new`);
    let fd: number;
    try {
      fd = openExclusive(temp);
    } catch (error) {
      // Left by a write that failed half-way, or (unsandboxed, where the shell is the server's
      // own user and reaches this directory) anything a shell planted: removed, never followed.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      rmSync(temp, { recursive: true, force: true });
      fd = openExclusive(temp);
    }
    try {
      writeFileSync(fd, bytes);
      try {
        renameSync(temp, path);
      } catch (error) {
        // A directory planted in the file's place (unsandboxed only, as above): replaced.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EISDIR' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
        rmSync(path, { recursive: true, force: true });
        renameSync(temp, path);
      }
    } catch (error) {
      closeSync(fd);
      rmSync(temp, { force: true });
      throw error;
    }
    return fd;
  }

  /**
   * The shell took the last command written (it printed that call's start mark, then wrote
   * its nonce): the command may have run, so it must never be typed again.
   */
  commandTaken(): boolean {
    const taken = this.takenMark();
    return taken !== null && (taken === this.lastNonce || taken.startsWith(`${this.lastNonce};`));
  }

  /**
   * The shell recorded the end of the last command written (`<nonce>;<status>`, written by
   * bash's post or pwsh's prompt just before the end mark): its end mark is on its way.
   */
  commandEndRecorded(): boolean {
    const taken = this.takenMark();
    return taken?.startsWith(`${this.lastNonce};`) === true;
  }

  private takenMark(): string | null {
    if (this.lastNonce === '') return null;
    const taken = readSmallUntrusted(this.takenFile, TAKEN_MARK_BYTES, this.shellOwners());
    // Padded with spaces (see TAKEN_MARK_BYTES); a nonce and a status have none.
    return taken === null ? null : taken.toString('latin1').trimEnd();
  }

  /**
   * uids the taken mark may belong to: the server's own, and the owner of the shell's part,
   * which the launcher gives to a shell that runs as its own user. The shell cannot swap that
   * directory: it sits in the server's part, read-only to the shell.
   */
  private shellOwners(): number[] {
    const owners = [serverUid()];
    try {
      owners.push(lstatSync(this.shellDir).uid);
    } catch {
      // Gone: only the server's own uid is accepted.
    }
    return owners;
  }

  /**
   * Removes the whole private dir; only once the shell's processes are gone. Asynchronous:
   * a shutdown removes a thousand of them at once, without holding the event loop. What
   * cannot be removed now is swept at the next start (PrivateDirs.sweep).
   */
  async remove(): Promise<void> {
    this.close();
    await rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** Lets go of the held command file and leaves the dir: a stop removes its run's at once. */
  close(): void {
    if (this.held !== null) closeSync(this.held);
    this.held = null;
  }
}

/** Where each command file's bytes are laid out (writes are synchronous: one suffices). */
const commandScratch = Buffer.alloc(COMMAND_RESERVE_BYTES);

function identityOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}`;
}

function openExclusive(path: string): number {
  return openSync(path, CREATE_FLAGS, FILE_MODE);
}
