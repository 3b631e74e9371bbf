import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hidingArgs, mountArgs } from './sandbox-paths.ts';

// Which parts of the home a sandbox shows again: the PATH directories themselves and the
// real directories of their linked executables, never a top-level directory that holds one.

let root: string;
let home: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-paths-'));
  home = join(root, 'home');
  mkdirSync(join(home, '.local', 'bin'), { recursive: true });
  mkdirSync(join(home, '.local', 'share', 'keyrings'), { recursive: true });
  mkdirSync(join(home, 'tools', 'node-20', 'bin'), { recursive: true });
  mkdirSync(join(home, 'data', 'bin'), { recursive: true });
  writeFileSync(join(home, 'tools', 'node-20', 'bin', 'node'), '#!/bin/sh\n');
  chmodSync(join(home, 'tools', 'node-20', 'bin', 'node'), 0o755);
  symlinkSync(join(home, 'tools', 'node-20', 'bin', 'node'), join(home, '.local', 'bin', 'node'));
  symlinkSync(join(home, '.local', 'bin'), join(home, 'bin'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The `--ro-bind SOURCE DEST` pairs of `args`. */
function shown(args: string[]): string[] {
  const pairs: string[] = [];
  args.forEach((arg, i) => {
    if (arg === '--ro-bind') pairs.push(`${args[i + 1]} -> ${args[i + 2]}`);
  });
  return pairs.filter((pair) => pair.includes(home));
}

describe('hidingArgs', () => {
  it('shows each PATH dir under the home and its links’ real dirs, not their top-level dir', () => {
    const args = hidingArgs({
      dataDir: join(home, 'data'),
      workspaceRoot: null,
      home,
      toolPaths: [join(home, 'bin'), join(home, 'data', 'bin'), '/usr/bin', 'relative/bin'],
    });
    const bin = join(home, '.local', 'bin');
    const node = join(home, 'tools', 'node-20', 'bin');
    // ~/bin is a link to ~/.local/bin: shown at both paths. The data dir's bin is the
    // server's own: hidden, PATH or not.
    // Sorted by mount point, a parent before what is under it.
    expect(shown(args)).toEqual([
      `${bin} -> ${bin}`,
      `${bin} -> ${join(home, 'bin')}`,
      `${node} -> ${node}`,
    ]);
    expect(args.join(' ')).not.toContain(`--ro-bind ${join(home, '.local')} `);
    expect(args).toContain(join(home, 'data'));
  });

  it('shows the pwsh executable’s directory when given the file', () => {
    writeFileSync(join(home, 'tools', 'pwsh'), '');
    const args = hidingArgs({
      dataDir: join(root, 'data'),
      workspaceRoot: null,
      home,
      toolPaths: [join(home, 'tools', 'pwsh')],
    });
    const tools = join(home, 'tools');
    expect(shown(args)).toEqual([`${tools} -> ${tools}`]);
  });
});

describe('mountArgs', () => {
  it('makes the missing parents of a mount point enterable by every user', () => {
    expect(mountArgs('--ro-bind', '/a/b/c', '/src')).toEqual([
      '--perms',
      '0755',
      '--dir',
      '/a/b',
      '--ro-bind',
      '/src',
      '/a/b/c',
    ]);
    expect(mountArgs('--tmpfs', '/tmp')).toEqual(['--tmpfs', '/tmp']);
  });
});
