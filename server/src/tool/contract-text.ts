/**
 * The fixed model-facing strings of TOOL-CONTRACT.md, byte for byte. Harnesses and prompts
 * match on them, so they live in one place and are pinned by tests; change them only
 * together with the contract.
 */
import type { Dialect } from '../../../shared/src/api.ts';

/** The tool descriptions agents are given unless configuration overrides them. */
export const DEFAULT_DESCRIPTIONS: Readonly<Record<Dialect, string>> = {
  bash: 'Run commands in a persistent bash shell. State, including the current directory and exported environment variables, persists across calls for this agent.',
  pwsh: 'Run commands in a persistent PowerShell shell. State, including the current directory and exported environment variables, persists across calls for this agent.',
};

/** How each dialect tells the model to search a file; the backticks in bash are literal. */
const SEARCH_HINT: Readonly<Record<Dialect, string>> = {
  bash: '`grep -n`',
  pwsh: 'Select-String',
};

/** Appended directly (no newline) after clipped output, or after output missing its start. */
export function clipNotice(dialect: Dialect): string {
  return (
    '<response clipped><NOTE>To save on context only part of this file has been shown to you. ' +
    `You should retry this tool after you have searched inside the file with ${SEARCH_HINT[dialect]} ` +
    'in order to find the line numbers of what you are looking for.</NOTE>'
  );
}

/** Put, followed by a newline, before output whose beginning could not be retained. */
export const LOST_PREFIX_NOTICE =
  '<response clipped><NOTE>The beginning of this command output was dropped by the terminal ' +
  'scrollback limit. The following text is the earliest retained output.</NOTE>';

/** First line of a timed-out call's result; `seconds` is already rounded by the caller. */
export function timeoutHeader(seconds: number): string {
  return `Your command timed out after ${seconds} seconds or experienced an OOM error. Below is partial output:`;
}

/** Last line after a timeout or a shell exit: the shell of this dialect was reset. */
export function resetLine(dialect: Dialect): string {
  return (
    `The persistent ${dialect} shell was reset; the next ${dialect} call starts from the ` +
    'workspace with a fresh current directory and environment.'
  );
}

export function exitCodeLine(code: number): string {
  return `[exit code: ${code}]`;
}

export function shellExitedWithCodeLine(code: number): string {
  return `[shell exited: code ${code}]`;
}

/** `signalName` is the symbolic name, e.g. `SIGKILL`. */
export function shellKilledBySignalLine(signalName: string): string {
  return `[shell killed by signal: ${signalName}]`;
}

/** The shell ended and neither its exit code nor a signal is known. */
export const SHELL_EXITED_LINE = '[shell exited]';

/** The shell's host stopped answering past the grace period (or died): the shell is gone. */
export function shellLostLine(host: string): string {
  return `[shell lost: host ${host} stopped answering]`;
}

/** `processName` is the waiting program's `/proc/<pid>/comm`. */
export function waitingForInputLine(processName: string): string {
  return `[waiting for input: ${processName}]`;
}

/** `path` is absolute, so the agent can read the file from any current directory. */
export function fullOutputSavedLine(path: string): string {
  return `[full output saved to ${path}]`;
}

/**
 * *Beyond* the contract's fixed strings: in place of the saved-output line when the whole
 * output could not be saved (the data dir refused it), so the model knows "this file" is
 * missing rather than looking for a path. `reason` is one short clause.
 */
export function fullOutputNotSavedLine(reason: string): string {
  return `[full output not saved: ${reason}]`;
}

/** The reason fullOutputNotSavedLine gives when the disk refused the file (`code`: ENOSPC…). */
export function spillRefusedReason(code: string): string {
  return `the server's disk refused it (${code})`;
}

const SAVED_LINE = /^\[full output saved to (.+)\]$/gm;

/**
 * The path the last saved-output line of a result names (the engine appends that line after
 * everything the command printed, so a look-alike printed by the command comes before it).
 */
export function savedOutputIn(result: string): string | null {
  let path: string | null = null;
  for (const match of result.matchAll(SAVED_LINE)) path = match[1] ?? null;
  return path;
}

/** *Beyond* the contract's fixed strings (head-tail clipping is ours): stands on its own
 *  line between the clip notice and the tail; `count` is in UTF-16 units, like the clip. */
export function omittedCharsLine(count: number): string {
  return `[… ${count} characters omitted …]`;
}

/** `summary` must already be one line of at most 500 characters (see result-text.ts). */
export function humanUsedLine(summary: string): string {
  return `[a human used this shell: ${summary}]`;
}

/** The 400 message for a command that is not a string with something other than white space. */
export const EMPTY_COMMAND_MESSAGE = 'command must be a non-empty string';
/** The 400 message for a command holding a NUL character (no shell can receive one). */
export const NUL_COMMAND_MESSAGE = 'command must not contain a NUL character';
