/**
 * Shell lifetime as TOOL-CONTRACT.md states it: what persists across calls, the environment
 * a shell starts with (no rc files, UTF-8), a password prompt read from /dev/tty, and saved
 * outputs that outlive a reset.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type TestEngine } from '../../test/support/engine.ts';

let engine: TestEngine;
let home: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'jumpseat-home-'));
  for (const rc of ['.bashrc', '.bash_profile', '.profile', '.bash_login']) {
    writeFileSync(join(home, rc), 'export FROM_RC=yes\necho rc-file-ran\n');
  }
  // A call's time limit counts its shell's start: 4 s leaves a loaded machine's start room
  // (at 1.5 s, a first call timed out under load and its alias was never defined).
  engine = startEngine({
    flags: ['--timeout-ms', '4000', '--max-output-chars', '50'],
    env: { ...process.env, HOME: home },
  });
});
afterAll(async () => {
  await engine.close();
  rmSync(home, { recursive: true, force: true });
});

describe('what persists across calls', () => {
  it('keeps aliases and background jobs', async () => {
    expect(await engine.call("alias greet='echo hello from alias'", 'persist')).toBe('');
    expect(await engine.call('greet', 'persist')).toBe('hello from alias');
    await engine.call('sleep 300 &', 'persist');
    expect(await engine.call('jobs', 'persist')).toMatch(/^\[1\]\+\s+Running\s+sleep 300 &$/);
    expect(await engine.call('kill %1; wait %1 2>/dev/null; jobs', 'persist')).toBe('');
  });
});

describe('the environment a shell starts with', () => {
  it('reads no rc or profile file', async () => {
    expect(await engine.call('echo "${FROM_RC-none}"', 'env')).toBe('none');
  });

  it('writes UTF-8', async () => {
    expect(await engine.call('locale charmap', 'env')).toBe('UTF-8');
  });
});

describe('waiting for a password', () => {
  it('sees a silent read from /dev/tty as waiting, and types the answer into it', async () => {
    expect(
      await engine.call('read -s -p \'Password: \' pw </dev/tty; echo; echo "len=${#pw}"', 'pw'),
    ).toBe('Password: \n[waiting for input: bash]');
    // The command's own `echo` ends the silent prompt's line, as on a terminal.
    expect(await engine.call('hunter22', 'pw')).toBe('\nlen=8');
  });
});

describe('saved outputs', () => {
  it('are kept when the shell is reset', async () => {
    const output = await engine.call('seq 1 100; sleep 30', 'spill');
    const path = (
      output.match(/\[full output saved to (\/[^\]]+)\]/) as RegExpMatchArray
    )[1] as string;
    expect(output).toMatch(/^Your command timed out after 4 seconds/);
    expect(existsSync(path)).toBe(true);
    expect(await engine.call(`head -3 '${path}'`, 'spill')).toBe('1\n2\n3');
  });
});
