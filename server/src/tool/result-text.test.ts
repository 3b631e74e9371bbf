import { describe, expect, it } from 'vitest';
import { clipNotice, LOST_PREFIX_NOTICE, resetLine } from './contract-text.ts';
import { OutputRenderer } from './output-renderer.ts';
import {
  type CallEnding,
  composeResult,
  HUMAN_SUMMARY_MAX_CHARS,
  humanSummaryText,
  type ResultInput,
} from './result-text.ts';

const BASH_CLIP =
  '<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>';
const PWSH_CLIP = BASH_CLIP.replace('`grep -n`', 'Select-String');
const LOST =
  '<response clipped><NOTE>The beginning of this command output was dropped by the terminal scrollback limit. The following text is the earliest retained output.</NOTE>';
const BASH_RESET =
  'The persistent bash shell was reset; the next bash call starts from the workspace with a fresh current directory and environment.';
const PWSH_RESET = BASH_RESET.replaceAll('bash', 'pwsh');
const TIMEOUT_300 =
  'Your command timed out after 300 seconds or experienced an OOM error. Below is partial output:';

function output(text: string, extra: Partial<ResultInput['output']> = {}): ResultInput['output'] {
  return {
    text,
    clipped: false,
    spillPath: null,
    lostPrefix: false,
    omittedChars: 0,
    tailStart: null,
    ...extra,
  };
}

function compose(
  text: string,
  ending: CallEnding,
  extra: Partial<ResultInput['output']> = {},
  more: Partial<ResultInput> = {},
): string {
  return composeResult({ dialect: 'bash', output: output(text, extra), ending, ...more });
}

const ok: CallEnding = { kind: 'completed', exitCode: 0 };

describe('composeResult: completed calls', () => {
  it('returns the output alone for exit code 0', () => {
    expect(compose('hello', ok)).toBe('hello');
  });

  it('returns the empty string for empty output and exit code 0', () => {
    expect(compose('', ok)).toBe('');
  });

  it('returns [exit code: N] after output, on its own line', () => {
    expect(compose('oops', { kind: 'completed', exitCode: 2 })).toBe('oops\n[exit code: 2]');
  });

  it('returns [exit code: N] alone when output is empty', () => {
    expect(compose('', { kind: 'completed', exitCode: 127 })).toBe('[exit code: 127]');
  });

  it('keeps a blank last line of the output before the status line', () => {
    expect(compose('a\n', { kind: 'completed', exitCode: 1 })).toBe('a\n\n[exit code: 1]');
  });
});

describe('composeResult: clipping and lost prefix', () => {
  it('appends the clip notice directly after clipped output', () => {
    expect(compose('abc', ok, { clipped: true })).toBe(`abc${BASH_CLIP}`);
    expect(
      composeResult({ dialect: 'pwsh', output: output('abc', { clipped: true }), ending: ok }),
    ).toBe(`abc${PWSH_CLIP}`);
    expect(clipNotice('pwsh')).toBe(PWSH_CLIP);
  });

  it('puts the saved-file line after the notice and before the exit status', () => {
    expect(
      compose('abc', { kind: 'completed', exitCode: 1 }, { clipped: true, spillPath: '/s/a.txt' }),
    ).toBe(`abc${BASH_CLIP}\n[full output saved to /s/a.txt]\n[exit code: 1]`);
  });

  it('prefixes the lost-prefix notice and appends the clip notice even when not clipped', () => {
    expect(LOST_PREFIX_NOTICE).toBe(LOST);
    expect(compose('tail', ok, { lostPrefix: true })).toBe(`${LOST}\ntail${BASH_CLIP}`);
    expect(compose('tail', ok, { lostPrefix: true, clipped: true, spillPath: '/p' })).toBe(
      `${LOST}\ntail${BASH_CLIP}\n[full output saved to /p]`,
    );
  });

  it('gives no saved-file line without a clip notice', () => {
    expect(compose('abc', ok, { spillPath: '/p' })).toBe('abc');
  });
});

describe('composeResult: head-tail clipping', () => {
  const headTail = { clipped: true, tailStart: 5, omittedChars: 16 };

  it('puts the clip notice and the omitted count on lines of their own between head and tail', () => {
    expect(compose('abcdeVWXYZ', ok, headTail)).toBe(
      `abcde\n${BASH_CLIP}\n[… 16 characters omitted …]\nVWXYZ`,
    );
    expect(
      composeResult({ dialect: 'pwsh', output: output('abcdeVWXYZ', headTail), ending: ok }),
    ).toBe(`abcde\n${PWSH_CLIP}\n[… 16 characters omitted …]\nVWXYZ`);
  });

  it('puts the saved-file line after the tail and before the exit status', () => {
    expect(
      compose(
        'abcdeVWXYZ',
        { kind: 'completed', exitCode: 1 },
        { ...headTail, spillPath: '/s/a.txt' },
      ),
    ).toBe(
      `abcde\n${BASH_CLIP}\n[… 16 characters omitted …]\nVWXYZ\n[full output saved to /s/a.txt]\n[exit code: 1]`,
    );
  });

  it('gives the exit status after the tail when there is no saved file', () => {
    expect(compose('abcdeVWXYZ', { kind: 'completed', exitCode: 2 }, headTail)).toBe(
      `abcde\n${BASH_CLIP}\n[… 16 characters omitted …]\nVWXYZ\n[exit code: 2]`,
    );
  });

  it('adds exactly one newline around the notice lines whatever head and tail end with', () => {
    expect(compose('ab\n\ncd', ok, { clipped: true, tailStart: 3, omittedChars: 4 })).toBe(
      `ab\n\n${BASH_CLIP}\n[… 4 characters omitted …]\n\ncd`,
    );
  });

  it('keeps the lost-prefix notice first and gives the clip notice once', () => {
    expect(compose('abcdeVWXYZ', ok, { ...headTail, lostPrefix: true, spillPath: '/p' })).toBe(
      `${LOST}\nabcde\n${BASH_CLIP}\n[… 16 characters omitted …]\nVWXYZ\n[full output saved to /p]`,
    );
  });

  it('applies head-tail to a timeout partial output', () => {
    expect(
      compose(
        'abcdeVWXYZ',
        { kind: 'timeout', timeoutMs: 300_000 },
        { ...headTail, spillPath: '/p' },
      ),
    ).toBe(
      `${TIMEOUT_300}\nabcde\n${BASH_CLIP}\n[… 16 characters omitted …]\nVWXYZ\n[full output saved to /p]\n${BASH_RESET}`,
    );
  });

  it('words a head-tail rendering of the renderer', async () => {
    const renderer = new OutputRenderer({ maxOutputChars: 10, spill: null, clip: 'head-tail' });
    renderer.push(new TextEncoder().encode('one\r\ntwo\r\nthree\r\nfour\r\n'));
    const rendered = await renderer.finish();
    expect(composeResult({ dialect: 'bash', output: rendered, ending: ok })).toBe(
      `one\nt\n${BASH_CLIP}\n[… 8 characters omitted …]\n\nfour`,
    );
  });

  it('renders head mode as before when the head-tail fields say head', () => {
    expect(compose('abc', ok, { clipped: true, tailStart: null, omittedChars: 0 })).toBe(
      `abc${BASH_CLIP}`,
    );
  });
});

describe('composeResult: special endings', () => {
  it('returns [waiting for input: NAME] after output, or alone', () => {
    const ending: CallEnding = { kind: 'waiting_input', processName: 'python3' };
    expect(compose('>>> ', ending)).toBe('>>> \n[waiting for input: python3]');
    expect(compose('', ending)).toBe('[waiting for input: python3]');
  });

  it('wraps a timeout in the header and the reset line', () => {
    const ending: CallEnding = { kind: 'timeout', timeoutMs: 300_000 };
    expect(compose('partial', ending)).toBe(`${TIMEOUT_300}\npartial\n${BASH_RESET}`);
    expect(compose('', ending)).toBe(`${TIMEOUT_300}\n${BASH_RESET}`);
    expect(composeResult({ dialect: 'pwsh', output: output(''), ending })).toBe(
      `${TIMEOUT_300}\n${PWSH_RESET}`,
    );
    expect(resetLine('pwsh')).toBe(PWSH_RESET);
  });

  it('rounds the timeout to whole seconds', () => {
    expect(compose('', { kind: 'timeout', timeoutMs: 1_499 })).toContain('after 1 seconds');
    expect(compose('', { kind: 'timeout', timeoutMs: 2_500 })).toContain('after 3 seconds');
  });

  it('applies the clip rules to a timeout partial output', () => {
    expect(
      compose('abc', { kind: 'timeout', timeoutMs: 300_000 }, { clipped: true, spillPath: '/p' }),
    ).toBe(`${TIMEOUT_300}\nabc${BASH_CLIP}\n[full output saved to /p]\n${BASH_RESET}`);
  });

  it('reports a shell exit by code, by signal, or plainly, then the reset line', () => {
    expect(compose('bye', { kind: 'shell_exit', code: 3 })).toBe(
      `bye\n[shell exited: code 3]\n${BASH_RESET}`,
    );
    expect(compose('', { kind: 'shell_exit', code: 0, signal: 'SIGKILL' })).toBe(
      `[shell killed by signal: SIGKILL]\n${BASH_RESET}`,
    );
    expect(compose('', { kind: 'shell_exit' })).toBe(`[shell exited]\n${BASH_RESET}`);
    expect(compose('', { kind: 'shell_exit', code: null, signal: null })).toBe(
      `[shell exited]\n${BASH_RESET}`,
    );
  });
});

describe('composeResult: human use', () => {
  it('begins with the human line', () => {
    expect(compose('out', { kind: 'completed', exitCode: 1 }, {}, { humanSummary: 'ls' })).toBe(
      '[a human used this shell: ls]\nout\n[exit code: 1]',
    );
    expect(compose('', ok, {}, { humanSummary: 'ls' })).toBe('[a human used this shell: ls]');
    expect(compose('', ok, {}, { humanSummary: null })).toBe('');
  });

  it('makes the summary one line: line breaks become "; ", escapes and controls go', () => {
    expect(humanSummaryText('cd /tmp\r\n\r\nls -la\n\x1b[Agit\tstatus\n')).toBe(
      'cd /tmp; ls -la; git status',
    );
  });

  it(`clips the summary to ${HUMAN_SUMMARY_MAX_CHARS} characters without splitting a pair`, () => {
    const long = humanSummaryText('x'.repeat(1000));
    expect(long).toBe(`${'x'.repeat(HUMAN_SUMMARY_MAX_CHARS - 1)}…`);
    const emoji = humanSummaryText(`${'x'.repeat(498)}😀😀`);
    expect(emoji).toBe(`${'x'.repeat(498)}…`);
    expect(humanSummaryText('x'.repeat(500))).toBe('x'.repeat(500));
  });
});
