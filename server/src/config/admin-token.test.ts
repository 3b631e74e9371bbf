import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configErrorOf, fileModeOf as modeOf } from '../../test/support/config-errors.ts';
import { type Config, loadConfig } from './config.ts';

// The admin token as loadConfig finds it: a token file, JUMPSEAT_TOKEN, or the generated one.

let root: string;
let dataDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-admin-token-'));
  dataDir = join(root, 'data');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function load(argv: string[] = [], env: NodeJS.ProcessEnv = {}): Config {
  return loadConfig(['--data-dir', dataDir, ...argv], env, root);
}

function messageOf(run: () => unknown): string {
  return configErrorOf(run).message;
}

describe('admin token', () => {
  it('generates a js_ token, keeps it in <data-dir>/admin-token with mode 600, and reuses it', () => {
    const first = load();
    expect(first.adminToken).toMatch(/^js_[A-Za-z0-9_-]{43}$/);
    expect(first.adminTokenSource).toBe('data-dir');
    const file = join(dataDir, 'admin-token');
    expect(modeOf(file)).toBe(0o600);
    const second = load();
    expect(second.adminToken).toBe(first.adminToken);
  });

  it('tightens a stored token file someone loosened back to mode 600', () => {
    const token = load().adminToken;
    const file = join(dataDir, 'admin-token');
    chmodSync(file, 0o644);
    expect(load().adminToken).toBe(token);
    expect(modeOf(file)).toBe(0o600);
  });

  it('refuses an empty stored token file and says how to recover', () => {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, 'admin-token');
    writeFileSync(file, '\n', { mode: 0o600 });
    expect(messageOf(() => load())).toBe(
      `admin token file "${file}" is empty; delete it to generate a new one`,
    );
  });

  it('takes JUMPSEAT_TOKEN as it is and writes no token file', () => {
    const config = load([], { JUMPSEAT_TOKEN: 'from-env-123' });
    expect(config.adminToken).toBe('from-env-123');
    expect(config.adminTokenSource).toBe('env');
    expect(existsSync(join(dataDir, 'admin-token'))).toBe(false);
  });

  it('reads --token-file, relative to the working directory, ignoring the final newline', () => {
    writeFileSync(join(root, 'token'), 'from-file-456\n');
    const config = load(['--token-file', 'token']);
    expect(config.adminToken).toBe('from-file-456');
    expect(config.adminTokenSource).toBe('file');
  });

  it('prefers --token-file over JUMPSEAT_TOKEN (flags win)', () => {
    writeFileSync(join(root, 'token'), 'from-file');
    expect(load(['--token-file', 'token'], { JUMPSEAT_TOKEN: 'from-env' }).adminToken).toBe(
      'from-file',
    );
  });

  it('reads JUMPSEAT_TOKEN_FILE', () => {
    writeFileSync(join(root, 'token'), 'via-variable');
    expect(load([], { JUMPSEAT_TOKEN_FILE: join(root, 'token') }).adminToken).toBe('via-variable');
  });

  it('refuses JUMPSEAT_TOKEN and JUMPSEAT_TOKEN_FILE together', () => {
    expect(messageOf(() => load([], { JUMPSEAT_TOKEN: 'a', JUMPSEAT_TOKEN_FILE: 'b' }))).toBe(
      'set either JUMPSEAT_TOKEN or JUMPSEAT_TOKEN_FILE, not both',
    );
  });

  it('refuses a missing token file, naming the flag', () => {
    const path = join(root, 'absent');
    expect(messageOf(() => load(['--token-file', path]))).toBe(
      `--token-file "${path}" cannot be read (ENOENT)`,
    );
  });

  it('refuses an empty token file, naming the variable', () => {
    const path = join(root, 'empty');
    writeFileSync(path, '  \n');
    expect(messageOf(() => load([], { JUMPSEAT_TOKEN_FILE: path }))).toBe(
      `JUMPSEAT_TOKEN_FILE "${path}" is empty`,
    );
  });

  it('refuses a token file holding more than one word', () => {
    const path = join(root, 'two');
    writeFileSync(path, 'one two\n');
    expect(messageOf(() => load(['--token-file', path]))).toBe(
      `--token-file "${path}" must hold one token of printable ASCII without spaces`,
    );
  });
});
