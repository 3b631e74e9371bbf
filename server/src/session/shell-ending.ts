/**
 * How and when one shell ended, as its record and `info()` report it: the first cause wins
 * (a reset, the server's close, or the process's own exit), and an exit is told exactly by
 * the launcher's exit mark `Q` when there is one (a sandbox's exit status may not tell an
 * exit code above 128 from a signal; see exit-waiter.ts).
 */
import type { SessionEnding, SessionEndingKind } from '../../../shared/src/api.ts';
import { parseExitMark } from '../launch/exit-waiter.ts';
import { type PtyExit, signalName } from '../pty/pty-process.ts';

/** The mark a launcher prints with the shell's exact ending (see exit-waiter.ts). */
export const EXIT_MARK = 'Q';

export class ShellEndingRecord {
  /** How and when the shell ended (the first cause wins); null while it runs. */
  private endingValue: SessionEnding | null = null;
  private closing = false;
  /** The shell's exact ending, when its launcher told it (the sandbox's exit status may not). */
  private exactExit: PtyExit | null = null;

  get ending(): SessionEnding | null {
    return this.endingValue;
  }

  /** The server is stopping: a reset from now on (a cancelled call's) is the shell's close. */
  beginClose(): void {
    this.closing = true;
  }

  /** The engine ends the shell, unless it has ended already. */
  endedBy(cause: Extract<SessionEndingKind, 'reset' | 'closed'>): void {
    this.endingValue ??= { kind: this.closing ? 'closed' : cause, exitCode: null, signal: null };
  }

  /** The exit mark's data (see EXIT_MARK); data that is no exit mark is ignored. */
  exitMark(data: string): void {
    const ending = parseExitMark(data);
    if (ending === null) return;
    const name = 'signal' in ending ? signalName(ending.signal) : null;
    this.exactExit =
      'code' in ending
        ? { code: ending.code, signal: null }
        : name
          ? { code: null, signal: name }
          : null;
  }

  /** The shell printed marks after an exit mark: that one was not the waiter's. */
  forgetExitMark(): void {
    this.exactExit = null;
  }

  /**
   * The PTY's process exited as `seen`. Returns a `settle` to call once the shell's last
   * output is read (an exit mark among it): it gives the exact exit, and records it when
   * the exit is what ended the shell.
   */
  exited(seen: PtyExit): () => PtyExit {
    const endsByExit = this.endingValue === null;
    this.endingValue ??= endingOf(seen);
    return () => {
      const exit = this.exactExit ?? seen;
      if (endsByExit && this.exactExit) this.endingValue = endingOf(exit);
      return exit;
    };
  }
}

function endingOf(exit: PtyExit): SessionEnding {
  return exit.signal
    ? { kind: 'killed', exitCode: null, signal: exit.signal }
    : { kind: 'exited', exitCode: exit.code, signal: null };
}
