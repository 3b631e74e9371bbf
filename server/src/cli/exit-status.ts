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
const TIMEOUT_FIRST_LINE =
  /^Your command timed out after \d+ seconds or experienced an OOM error\./;
/** 128 + signal number, as shells report a process killed by a signal. */
const SIGNAL_EXIT_BASE = 128;

export function exitStatusOf(result: string): number {
  const lines = result.split('\n');
  const last = lines.at(-1) ?? '';
  const resetLines = new Set(DIALECTS.map((dialect) => resetLine(dialect)));
  if (resetLines.has(last)) {
    if (TIMEOUT_FIRST_LINE.test(lines[0] ?? '')) return EXIT_TIMEOUT;
    const ending = lines.at(-2) ?? '';
    const code = SHELL_CODE_LINE.exec(ending)?.[1];
    if (code !== undefined) return processStatus(Number(code));
    const signal = SHELL_SIGNAL_LINE.exec(ending)?.[1];
    const number = signal === undefined ? undefined : signalNumber(signal);
    return number === undefined ? EXIT_SHELL_EXITED : SIGNAL_EXIT_BASE + number;
  }
  if (WAITING_LINE.test(last)) return EXIT_WAITING_INPUT;
  const code = EXIT_CODE_LINE.exec(last)?.[1];
  return code === undefined ? 0 : processStatus(Number(code));
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
