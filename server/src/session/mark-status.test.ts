import { describe, expect, it } from 'vitest';
import { endMarkOf, promptOfOtherCall, promptStatusOf } from './mark-status.ts';

describe('the status an end mark says', () => {
  it('is the status it carries, for a finished pipeline whether interrupted or not', () => {
    expect(endMarkOf('n1;0', false)).toEqual({ nonce: 'n1', status: 0 });
    expect(endMarkOf('n1;3', true)).toEqual({ nonce: 'n1', status: 3 });
  });

  it('is 130 for an unfinished pwsh pipeline whose shell the engine interrupted', () => {
    // The stop landed where pwsh recorded another error (a module load cut short).
    expect(endMarkOf('N1;1;U', true)).toEqual({ nonce: 'N1', status: 130 });
    // Not interrupted: a terminating error is the command's own.
    expect(endMarkOf('N1;1;U', false)).toEqual({ nonce: 'N1', status: 1 });
  });
});

describe('the status a prompt mark says of a command whose end mark never came', () => {
  it("is the command's own, else the shell's last, else an interrupt's", () => {
    expect(promptStatusOf('n1;4;0', 'n1')).toBe(4);
    expect(promptStatusOf('n0;4;2', 'n1')).toBe(2);
    expect(promptStatusOf('n0;;0', 'n1')).toBe(130);
    expect(promptStatusOf('n1;I;0', 'n1')).toBe(130);
  });

  it("is the shell's last status for a program no call started (a person's, adopted)", () => {
    expect(promptStatusOf('n0;0;7', '')).toBe(7);
    expect(promptStatusOf('n0;0;0', '')).toBe(0);
    expect(promptStatusOf(';;0', '')).toBe(0);
  });
});

describe('a prompt that names another call', () => {
  it('is one printed earlier when a call runs, and any prompt when no call started the program', () => {
    expect(promptOfOtherCall('n0;0;0', 'n1')).toBe(true);
    expect(promptOfOtherCall('n1;0;0', 'n1')).toBe(false);
    // pwsh's prompt names no call.
    expect(promptOfOtherCall('', 'n1')).toBe(false);
    expect(promptOfOtherCall('n0;0;0', '')).toBe(false);
  });
});
