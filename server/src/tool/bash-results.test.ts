/**
 * The bash result text over a real shell: rendering rules, exit status, clipping with the
 * spill file. Every notice is pinned to its exact text.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type TestEngine } from '../../test/support/engine.ts';

const CLIP_NOTICE =
  '<response clipped><NOTE>To save on context only part of this file has been shown to you. ' +
  'You should retry this tool after you have searched inside the file with `grep -n` in order ' +
  'to find the line numbers of what you are looking for.</NOTE>';

let engine: TestEngine;
let small: TestEngine;
let headTail: TestEngine;

beforeAll(() => {
  engine = startEngine();
  small = startEngine({ flags: ['--max-output-chars', '100'] });
  headTail = startEngine({ flags: ['--max-output-chars', '100', '--clip', 'head-tail'] });
});
afterAll(async () => {
  await engine.close();
  await small.close();
  await headTail.close();
});

describe('output as a terminal shows it', () => {
  it('returns the output with exactly one trailing newline removed', async () => {
    expect(await engine.call('echo hello')).toBe('hello');
    expect(await engine.call("printf 'a\\n\\n'")).toBe('a\n');
    expect(await engine.call("printf 'no newline'")).toBe('no newline');
  });

  it('returns an empty string for a silent successful command', async () => {
    expect(await engine.call('true')).toBe('');
    expect(await engine.call('x=1')).toBe('');
  });

  it('interleaves stdout and stderr as the terminal shows them', async () => {
    expect(await engine.call('echo out; echo err >&2; echo out2')).toBe('out\nerr\nout2');
  });

  it('removes colours and other control sequences', async () => {
    expect(await engine.call("printf '\\033[1;31mred\\033[0m \\033]0;title\\007plain\\n'")).toBe(
      'red plain',
    );
  });

  it('collapses carriage-return redraws to their final text', async () => {
    expect(await engine.call("printf '10%%\\r50%%\\r100%%\\n'")).toBe('100%');
    expect(await engine.call("printf 'abc\\rX\\n'")).toBe('Xbc');
  });

  it('keeps tabs', async () => {
    expect(await engine.call("printf 'a\\tb\\tc'")).toBe('a\tb\tc');
  });

  it('keeps a long line as one line whatever the terminal width', async () => {
    expect(await engine.call("printf '%0300d\\n' 0")).toBe('0'.repeat(300));
  });

  it('turns invalid UTF-8 into U+FFFD', async () => {
    expect(await engine.call("printf '\\377\\376ok\\n'")).toBe('\uFFFD\uFFFDok');
  });

  it('passes Unicode through unchanged', async () => {
    expect(await engine.call("echo 'héllo 世界 🎉 é'")).toBe('héllo 世界 🎉 é');
  });

  it('never shows the prompt, the echo of the command or marker text', async () => {
    const output = await engine.call('echo one; echo two');
    expect(output).toBe('one\ntwo');
    expect(output).not.toContain('$');
    expect(output).not.toContain('jumpseat');
  });

  it('runs in the workspace with the documented terminal environment', async () => {
    expect(await engine.call('pwd')).toBe(engine.workspaceOf('agent-1'));
    expect(await engine.call('echo "$TERM $PAGER $GIT_PAGER"')).toBe('xterm-256color cat cat');
    expect(await engine.call('stty size')).toBe('40 120');
  });
});

describe('exit status', () => {
  it('appends [exit code: N] on its own line after output', async () => {
    expect(await engine.call('echo hi; false')).toBe('hi\n[exit code: 1]');
  });

  it('gives [exit code: N] alone when there is no output', async () => {
    expect(await engine.call('(exit 7)')).toBe('[exit code: 7]');
  });

  it('appends nothing for status 0', async () => {
    expect(await engine.call('false; true')).toBe('');
  });

  it('reports a syntax error like any failing command', async () => {
    const output = await engine.call('if true; then\necho never');
    expect(output).toMatch(/syntax error/);
    expect(output).toMatch(/\n\[exit code: 2\]$/);
    expect(await engine.call('echo still here')).toBe('still here');
  });

  it('reports a missing command with status 127', async () => {
    expect(await engine.call('no-such-command-xyz')).toBe(
      'bash: no-such-command-xyz: command not found\n[exit code: 127]',
    );
  });
});

describe('clipping', () => {
  it('keeps the first maxOutputChars characters, appends the notice and the saved file', async () => {
    const output = await small.call('seq 1 10000');
    const full = Array.from({ length: 10000 }, (_, i) => String(i + 1)).join('\n');
    const match = output.match(/^([\s\S]*)\n\[full output saved to (\/.+)\]$/);
    expect(match).not.toBeNull();
    const [, clipped, path] = match as RegExpMatchArray;
    expect(clipped).toBe(full.slice(0, 100) + CLIP_NOTICE);
    // The file is the whole output as printed, its final newline included (a text file).
    expect(readFileSync(path as string, 'utf8')).toBe(`${full}\n`);
  });

  it('puts the exit status line after the saved-file line', async () => {
    const output = await small.call('seq 1 1000; exit_with() { return $1; }; exit_with 3');
    expect(output).toMatch(/<\/NOTE>\n\[full output saved to \/[^\]]+\]\n\[exit code: 3\]$/);
  });

  it('does not clip output of exactly maxOutputChars (after the newline removal)', async () => {
    expect(await small.call("printf '%0100d\\n' 0")).toBe('0'.repeat(100));
  });

  it('keeps the head of very long output', async () => {
    const output = await engine.call('seq 1 300000');
    expect(output.startsWith('1\n2\n3\n4\n5\n')).toBe(true);
    expect(output).not.toContain('The beginning of this command output was dropped');
  });

  it('lets the shell read the saved file', async () => {
    const output = await small.call('seq 1 5000');
    const path = (output.match(/\[full output saved to (\/.+)\]$/) as RegExpMatchArray)[1];
    expect(await small.call(`grep -n '^4999$' '${path}'`)).toBe('4999:4999');
  });
});

describe('head-tail clipping (beyond: --clip head-tail)', () => {
  it('keeps the first and last parts with the notice and the omitted count between', async () => {
    const output = await headTail.call('seq 1 10000; false');
    const full = Array.from({ length: 10000 }, (_, i) => String(i + 1)).join('\n');
    const match = output.match(/\n\[full output saved to (\/[^\]]+)\]\n\[exit code: 1\]$/);
    expect(match).not.toBeNull();
    const path = (match as RegExpMatchArray)[1] as string;
    expect(output).toBe(
      `${full.slice(0, 50)}\n${CLIP_NOTICE}\n[… ${full.length - 100} characters omitted …]\n` +
        `${full.slice(-50)}\n[full output saved to ${path}]\n[exit code: 1]`,
    );
    expect(readFileSync(path, 'utf8')).toBe(`${full}\n`);
  });

  it('leaves output that fits untouched', async () => {
    expect(await headTail.call('seq 1 5')).toBe('1\n2\n3\n4\n5');
  });
});
