/** The contract's input rules for a command, as every surface applies them. */
import { describe, expect, it } from 'vitest';
import { commandProblem, validateCommand } from './command-rules.ts';

describe('command rules', () => {
  it('refuses empty and white-space-only commands with the contract message', () => {
    for (const command of ['', ' ', '\n\t ']) {
      expect(commandProblem(command)).toBe('command must be a non-empty string');
    }
  });

  it('refuses a NUL character anywhere', () => {
    expect(commandProblem('echo a\u0000b')).toBe('command must not contain a NUL character');
    expect(commandProblem('\u0000')).toBe('command must not contain a NUL character');
  });

  it('accepts any other text, control characters and newlines included', () => {
    expect(commandProblem('echo hi')).toBeUndefined();
    expect(commandProblem('\u0003')).toBeUndefined();
    expect(commandProblem('cat <<EOF\n\tx\nEOF')).toBeUndefined();
  });

  it('throws a 400 for what is not a runnable string', () => {
    expect(() => validateCommand(42)).toThrow(
      expect.objectContaining({ status: 400, message: 'command must be a non-empty string' }),
    );
    expect(() => validateCommand('  ')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    expect(validateCommand('ls')).toBe('ls');
  });
});
