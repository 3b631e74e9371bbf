import { describe, expect, it } from 'vitest';
import { EXIT_TIMEOUT, EXIT_WAITING_INPUT, endingOf, exitStatusOf } from './exit-status.ts';

const RESET =
  'The persistent bash shell was reset; the next bash call starts from the workspace with a fresh current directory and environment.';

describe('exitStatusOf', () => {
  it('is 0 for a completed command without a status line', () => {
    expect(exitStatusOf('hello')).toBe(0);
    expect(exitStatusOf('')).toBe(0);
  });

  it('is the code of a final [exit code: N] line', () => {
    expect(exitStatusOf('oops\n[exit code: 2]')).toBe(2);
    expect(exitStatusOf('[exit code: 127]')).toBe(127);
    expect(exitStatusOf('[exit code: 256]')).toBe(1);
    expect(exitStatusOf('[exit code: -1]')).toBe(255);
  });

  it('ignores an exit-code line that is not the last line', () => {
    expect(exitStatusOf('[exit code: 3]\nmore')).toBe(0);
  });

  it('is 124 for a timeout', () => {
    expect(
      exitStatusOf(
        `Your command timed out after 1 seconds or experienced an OOM error. Below is partial output:\npartial\n${RESET}`,
      ),
    ).toBe(EXIT_TIMEOUT);
  });

  it("is the shell's code or 128 + signal when the shell itself ended", () => {
    expect(exitStatusOf(`bye\n[shell exited: code 3]\n${RESET}`)).toBe(3);
    expect(exitStatusOf(`[shell killed by signal: SIGKILL]\n${RESET}`)).toBe(137);
    expect(exitStatusOf(`[shell exited]\n${RESET}`)).toBe(1);
  });

  it('is 125 while the command waits for input', () => {
    expect(exitStatusOf('Name? \n[waiting for input: bash]')).toBe(EXIT_WAITING_INPUT);
  });
});

describe('endingOf', () => {
  it("names each ending with the command's or the shell's exit code when the text gives one", () => {
    expect(endingOf('hello')).toEqual({ ending: 'completed', exitCode: 0, signal: null });
    expect(endingOf('[exit code: 256]')).toEqual({
      ending: 'completed',
      exitCode: 256,
      signal: null,
    });
    expect(endingOf('Name? \n[waiting for input: bash]')).toEqual({
      ending: 'waiting_input',
      exitCode: null,
      signal: null,
    });
    expect(
      endingOf(
        `Your command timed out after 1 seconds or experienced an OOM error. Below is partial output:\n${RESET}`,
      ),
    ).toEqual({ ending: 'timeout', exitCode: null, signal: null });
    expect(endingOf(`[shell exited: code 3]\n${RESET}`)).toEqual({
      ending: 'shell_exit',
      exitCode: 3,
      signal: null,
    });
    expect(endingOf(`[shell killed by signal: SIGKILL]\n${RESET}`)).toEqual({
      ending: 'shell_exit',
      exitCode: null,
      signal: 'SIGKILL',
    });
    expect(endingOf(`[shell lost: host h1 stopped answering]\n${RESET}`)).toEqual({
      ending: 'shell_lost',
      exitCode: null,
      signal: null,
    });
  });
});
