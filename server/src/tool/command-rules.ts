/**
 * The input rules of TOOL-CONTRACT.md for a command, in one place: the HTTP API checks a
 * body with them before reading it further, and the engine checks every call with them
 * whatever surface it came through.
 */
import { JUMPSEAT_ERR_BAD_REQUEST, JumpseatError } from '../errors.ts';
import { EMPTY_COMMAND_MESSAGE, NUL_COMMAND_MESSAGE } from './contract-text.ts';

/** Why a command string cannot be run (the contract's exact message), or undefined. */
export function commandProblem(command: string): string | undefined {
  if (command.includes('\u0000')) return NUL_COMMAND_MESSAGE;
  if (command.trim() === '') return EMPTY_COMMAND_MESSAGE;
  return undefined;
}

/** Throws the contract's 400 error for a command that cannot be run. */
export function validateCommand(command: unknown): string {
  const problem = typeof command === 'string' ? commandProblem(command) : EMPTY_COMMAND_MESSAGE;
  if (problem !== undefined) throw new JumpseatError(JUMPSEAT_ERR_BAD_REQUEST, problem);
  return command as string;
}
