import { describe, expect, it } from 'vitest';
import {
  clipNotice,
  DEFAULT_DESCRIPTIONS,
  exitCodeLine,
  fullOutputNotSavedLine,
  fullOutputSavedLine,
  humanUsedLine,
  LOST_PREFIX_NOTICE,
  omittedCharsLine,
  resetLine,
  SHELL_EXITED_LINE,
  shellExitedWithCodeLine,
  shellKilledBySignalLine,
  spillRefusedReason,
  timeoutHeader,
  waitingForInputLine,
} from './contract-text.ts';

describe('contract text', () => {
  it('gives the default tool descriptions verbatim', () => {
    expect(DEFAULT_DESCRIPTIONS.bash).toBe(
      'Run commands in a persistent bash shell. State, including the current directory and exported environment variables, persists across calls for this agent.',
    );
    expect(DEFAULT_DESCRIPTIONS.pwsh).toBe(
      'Run commands in a persistent PowerShell shell. State, including the current directory and exported environment variables, persists across calls for this agent.',
    );
  });

  it('gives the bash clip notice with literal backticks around grep -n', () => {
    expect(clipNotice('bash')).toBe(
      '<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>',
    );
  });

  it('gives the pwsh clip notice with Select-String and no backticks', () => {
    expect(clipNotice('pwsh')).toBe(
      '<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with Select-String in order to find the line numbers of what you are looking for.</NOTE>',
    );
  });

  it('gives the lost-prefix notice', () => {
    expect(LOST_PREFIX_NOTICE).toBe(
      '<response clipped><NOTE>The beginning of this command output was dropped by the terminal scrollback limit. The following text is the earliest retained output.</NOTE>',
    );
  });

  it('gives the timeout header with the seconds', () => {
    expect(timeoutHeader(300)).toBe(
      'Your command timed out after 300 seconds or experienced an OOM error. Below is partial output:',
    );
  });

  it('names the dialect in both places of the reset line', () => {
    expect(resetLine('bash')).toBe(
      'The persistent bash shell was reset; the next bash call starts from the workspace with a fresh current directory and environment.',
    );
    expect(resetLine('pwsh')).toBe(
      'The persistent pwsh shell was reset; the next pwsh call starts from the workspace with a fresh current directory and environment.',
    );
  });

  it('gives the status and information lines', () => {
    expect(exitCodeLine(2)).toBe('[exit code: 2]');
    expect(shellExitedWithCodeLine(3)).toBe('[shell exited: code 3]');
    expect(shellKilledBySignalLine('SIGKILL')).toBe('[shell killed by signal: SIGKILL]');
    expect(SHELL_EXITED_LINE).toBe('[shell exited]');
    expect(waitingForInputLine('python3')).toBe('[waiting for input: python3]');
    expect(fullOutputSavedLine('/data/spill/a1/x.txt')).toBe(
      '[full output saved to /data/spill/a1/x.txt]',
    );
    expect(humanUsedLine('ls; git status')).toBe('[a human used this shell: ls; git status]');
  });

  it('gives the head-tail omitted line with the count', () => {
    expect(omittedCharsLine(16)).toBe('[… 16 characters omitted …]');
    expect(omittedCharsLine(1234567)).toBe('[… 1234567 characters omitted …]');
  });

  it("gives the not-saved line (beyond the contract) with the disk's reason", () => {
    expect(fullOutputNotSavedLine(spillRefusedReason('ENOSPC'))).toBe(
      "[full output not saved: the server's disk refused it (ENOSPC)]",
    );
  });
});
