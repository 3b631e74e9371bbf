/**
 * The exit status `jumpseat exec` leaves with, read from the result text's fixed lines
 * (TOOL-CONTRACT.md): the command's own status when the text tells it, else a documented
 * code for each special ending.
 */
import { constants } from 'node:os';
import { DIALECTS } from '../../../shared/src/vocabulary.ts';
import { resetLine } from '../tool/contract-text.ts';

/** The deadline ended the call (as `timeout(1)` does). */
export const EXIT_TIMEOUT = 124;
/** The command waits for input; the next `exec` for this agent is typed into it. */
export const EXIT_WAITING_INPUT = 125;
/** The shell ended and no code or signal is known. */
export const EXIT_SHELL_EXITED = 1;

const EXIT_CODE_LINE = /^\[exit code: (-?\d+)\]$/;
const SHELL_CODE_LINE = /^\[shell exited: code (-?\d+)\]$/;
const SHELL_SIGNAL_LINE = /^\[shell killed by signal: (SIG[A-Z0-9]+)\]$/;
const WAITING_LINE = /^\[waiting for input: .*\]$/;
const SHELL_LOST_LINE = /^\[shell lost: .*\]$/;
const TIMEOUT_FIRST_LINE =
  /^Your command timed out after \d+ seconds or experienced an OOM error\./;
/** 128 + signal number, as shells report a process killed by a signal. */
const SIGNAL_EXIT_BASE = 128;

/** How a call ended, read from its result text (`jumpseat exec --json` prints it). */
export type CallEnding = 'completed' | 'timeout' | 'waiting_input' | 'shell_exit' | 'shell_lost';

export interface ResultEnding {
  readonly ending: CallEnding;
  /**
   * The command's exit code when the text tells it (0 for a completed command without an
   * `[exit code: N]` line), the shell's own code when it exited with one; null otherwise.
   */
  readonly exitCode: number | null;
  /** The signal that ended the shell (`SIGKILL`), when the text names one. */
  readonly signal: string | null;
}

export function endingOf(result: string): ResultEnding {
  const lines = result.split('\n');
  const last = lines.at(-1) ?? '';
  const resetLines = new Set(DIALECTS.map((dialect) => resetLine(dialect)));
  if (resetLines.has(last)) {
    if (TIMEOUT_FIRST_LINE.test(lines[0] ?? '')) return ended('timeout');
    const ending = lines.at(-2) ?? '';
    if (SHELL_LOST_LINE.test(ending)) return ended('shell_lost');
    const code = SHELL_CODE_LINE.exec(ending)?.[1];
    const signal = SHELL_SIGNAL_LINE.exec(ending)?.[1];
    return ended('shell_exit', code === undefined ? null : Number(code), signal ?? null);
  }
  if (WAITING_LINE.test(last)) return ended('waiting_input');
  const code = EXIT_CODE_LINE.exec(last)?.[1];
  return ended('completed', code === undefined ? 0 : Number(code));
}

function ended(ending: CallEnding, exitCode: number | null = null, signal: string | null = null) {
  return { ending, exitCode, signal };
}

export function exitStatusOf(result: string): number {
  const { ending, exitCode, signal } = endingOf(result);
  switch (ending) {
    case 'timeout':
      return EXIT_TIMEOUT;
    case 'waiting_input':
      return EXIT_WAITING_INPUT;
    case 'shell_lost':
      return EXIT_SHELL_EXITED;
    case 'shell_exit': {
      if (exitCode !== null) return processStatus(exitCode);
      const number = signal === null ? undefined : signalNumber(signal);
      return number === undefined ? EXIT_SHELL_EXITED : SIGNAL_EXIT_BASE + number;
    }
    case 'completed':
      return exitCode === null ? 0 : processStatus(exitCode);
  }
}

/** A status a process can exit with (0–255); a failure never wraps round to 0. */
function processStatus(code: number): number {
  const status = ((code % 256) + 256) % 256;
  return status === 0 && code !== 0 ? 1 : status;
}

function signalNumber(name: string): number | undefined {
  const signals: Record<string, number | undefined> = constants.signals;
  return signals[name];
}
