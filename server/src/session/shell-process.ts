/**
 * A shell's process as the engine sees it: placed by the launcher (sandboxed or not; the
 * engine never knows which), spawned on a PTY, located once the shell reports its own pid,
 * and ended with everything it started. One reason to change: how a shell's process lives
 * and dies.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Placement, PlacementRequest, ShellLauncher } from '../launch/launcher.ts';
import type { Disposable } from '../pty/disposable.ts';
import { HeldStat } from '../pty/held-stat.ts';
import { openOwnTerminal } from '../pty/own-terminal.ts';
import {
  hostPidOf,
  type ProcStat,
  readStatNow,
  startTimeOf,
  terminalOf,
} from '../pty/proc-probe.ts';
import { endProcessTree } from '../pty/process-tree.ts';
import { type PtyExit, type PtyProcess, spawnPty } from '../pty/pty-process.ts';

/** After the PTY exits, output may still be in flight: wait for this much quiet… */
const EXIT_QUIET_MS = 20;
/** …but never longer than this before announcing the exit. */
const EXIT_FLUSH_LIMIT_MS = 250;

export class ShellProcess {
  private readonly pty: PtyProcess;
  private readonly placement: Placement;
  /** The shell itself, as the host numbers it; the PTY's process until located. */
  private shellPid = 0;
  /** The located shell's stat, held open (see held-stat.ts); null until located. */
  private heldStat: HeldStat | null = null;
  /** Ending the process tree, once started: a reset and the PTY's exit share it. */
  private treeEnded: Promise<void> | null = null;
  /** The launcher finishing the place (the sandbox's network), begun as the PTY starts. */
  private readonly started: Promise<void>;
  /** When the PTY's process started: its pid names it only while this still matches. */
  private readonly ptyStartTime: string | null;
  /** Whether the launcher was told the shell settled. */
  private settledTold = false;

  /** Throws with the launcher's or node-pty's reason when the shell cannot start. */
  constructor(launcher: ShellLauncher, request: PlacementRequest) {
    this.placement = launcher.place(request);
    try {
      this.pty = spawnPty(this.placement.spawn);
    } catch (error) {
      this.placement.release();
      throw error;
    }
    this.ptyStartTime = startTimeOf(this.pty.pid);
    this.started = this.placement.started?.(this.pty.pid) ?? Promise.resolve();
  }

  /** The shell process (in a sandbox a descendant of the PTY's process). */
  get pid(): number {
    return this.shellPid || this.pty.pid;
  }

  /**
   * The shell process's stat now, read at once (in place, once the shell is located); null
   * once it is gone.
   */
  stat(): ProcStat | null {
    return this.heldStat === null ? readStatNow(this.pid) : this.heldStat.read();
  }

  /**
   * A shell stopped by a signal (`suspend`, `kill -STOP $$`) waits for a parent shell's `fg`
   * that never comes here: the call ran to its deadline and the shell was reset. It goes on
   * instead, with its state, as after `fg`. True when it was stopped. `stat`: the shell's stat
   * when the caller has just read it.
   */
  continueIfStopped(stat: ProcStat | null = this.stat()): boolean {
    if (this.heldStat === null || stat?.state !== 'T') return false;
    try {
      process.kill(this.shellPid, 'SIGCONT');
    } catch {
      return false;
    }
    return true;
  }

  write(data: string): void {
    this.pty.write(data);
  }

  /** Written bytes the terminal has not taken yet. */
  unwrittenBytes(): number {
    return this.pty.unwrittenBytes();
  }

  /** Forgets written bytes that have not begun going to the terminal. */
  dropUnwritten(): void {
    this.pty.dropUnwritten();
  }

  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
  }

  onData(listener: (chunk: Buffer) => void): Disposable {
    return this.pty.onData(listener);
  }

  /** How the shell itself ended (the launcher reads it from how the PTY's process did). */
  onExit(listener: (exit: PtyExit) => void): Disposable {
    return this.pty.onExit((exit) => listener(this.placement.describeExit(exit)));
  }

  /**
   * Finds the shell from the pid it reports of itself (its namespace's, in a sandbox), and
   * the terminal it runs on; the shell is ready once its place is finished too.
   */
  async locate(reportedPid: number | null): Promise<{ tty: string }> {
    const [pid, tty] = await Promise.all([
      reportedPid === null ? this.pty.pid : hostPidOf(this.pty.pid, reportedPid),
      terminalOf(this.pty.pid),
      this.started,
    ]);
    this.shellPid = pid ?? this.pty.pid;
    this.heldStat?.close();
    this.heldStat = new HeldStat(this.shellPid);
    return { tty: tty ?? '' };
  }

  /** The shell has answered a call: the first time, the launcher hears it (Placement.settled). */
  answered(): void {
    if (this.settledTold) return;
    this.settledTold = true;
    this.placement.settled?.();
  }

  /** The shell's terminal (`ttyPath`, as located), opened while it is still this shell's. */
  openTerminal(ttyPath: string): Promise<FileHandle | null> {
    return openOwnTerminal(ttyPath, this.pty.pid, this.ptyStartTime);
  }

  /**
   * Ends the whole tree the launcher knows of, once, and frees the placement after. At a stop
   * (`stopping`) a contained tree is killed without watching it die (endProcessTree).
   */
  endTree({ stopping = false }: { stopping?: boolean } = {}): Promise<void> {
    const members = async (pid: number): Promise<Set<number>> => {
      const ours = this.ptyStartTime !== null && startTimeOf(pid) === this.ptyStartTime;
      return this.placement.members(pid, ours);
    };
    const release = (): void => {
      this.heldStat?.close();
      this.placement.release();
    };
    const watch = !(stopping && this.placement.contained);
    if (stopping && this.treeEnded === null) this.placement.yieldCpu?.();
    this.treeEnded ??= endProcessTree(this.pty.pid, members, { watch }).then(release, release);
    return this.treeEnded;
  }

  /**
   * Waits until the PTY has been quiet for a moment (or the flush limit passed). The quiet
   * timer ending is checked once more after the event loop's next I/O poll: on a busy loop
   * an expired timer runs before bytes already waiting in the terminal are read.
   */
  quiet(): Promise<void> {
    return new Promise((resolve) => {
      let heard = false;
      const limit = setTimeout(done, EXIT_FLUSH_LIMIT_MS);
      let quiet = setTimeout(check, EXIT_QUIET_MS);
      const listener = this.pty.onData(() => {
        heard = true;
        clearTimeout(quiet);
        quiet = setTimeout(check, EXIT_QUIET_MS);
      });
      function check() {
        heard = false;
        setImmediate(() => {
          if (!heard) done();
        });
      }
      function done() {
        clearTimeout(limit);
        clearTimeout(quiet);
        listener.dispose();
        resolve();
      }
    });
  }
}
