import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configErrorOf } from '../../test/support/config-errors.ts';
import { loadConfig } from './config.ts';

// `--readable DIR` as loadConfig checks it: real directories of a project, never the root,
// nor one that holds the home, the temp dir, the data dir or the workspace root, nor the
// data dir's insides or the workspace root's.

let root: string;
let home: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-readable-'));
  home = join(root, 'home');
  mkdirSync(join(home, 'project', 'bin'), { recursive: true });
  mkdirSync(join(root, 'workspace', 'a1'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function load(readable: string[], env: NodeJS.ProcessEnv = { HOME: home }) {
  return loadConfig(
    [
      '--data-dir',
      join(root, 'data'),
      '--workspace',
      join(root, 'workspace'),
      ...readable.flatMap((dir) => ['--readable', dir]),
    ],
    env,
    root,
  );
}

describe('--readable', () => {
  it('takes project directories (relative to the working directory), once each', () => {
    const config = load(['home/project', join(home, 'project'), 'home/project/bin']);
    expect(config.readable).toEqual([join(home, 'project'), join(home, 'project', 'bin')]);
  });

  it('reads JUMPSEAT_READABLE as paths separated by colons', () => {
    const config = load([], {
      HOME: home,
      JUMPSEAT_READABLE: `${join(home, 'project')}:${join(home, 'project', 'bin')}`,
    });
    expect(config.readable).toEqual([join(home, 'project'), join(home, 'project', 'bin')]);
  });

  it('is empty unless given', () => {
    expect(load([]).readable).toEqual([]);
  });

  it('refuses what would show too much, saying why', () => {
    const message = (dir: string) => configErrorOf(() => load([dir])).message;
    expect(message('/')).toBe(
      '--readable: / is the whole file system; name a directory of the project instead',
    );
    expect(message(home)).toBe(
      `--readable: ${home} holds the home directory; name a directory of the project instead`,
    );
    load([]); // makes the data dir
    expect(message(join(root, 'data'))).toBe(
      `--readable: ${join(root, 'data')} is inside the data dir (the server's own); name a directory of the project instead`,
    );
    expect(message(join(root, 'workspace', 'a1'))).toBe(
      `--readable: ${join(root, 'workspace', 'a1')} is inside the workspace root (the agents'); name a directory of the project instead`,
    );
  });

  it('refuses a directory that holds the temp dir, the data dir or the workspace root', () => {
    const tmp = realpathSync(tmpdir());
    // This test's home is in the temp dir: a home elsewhere, so the temp dir is the reason.
    expect(configErrorOf(() => load([tmp], { HOME: '/nonexistent' })).message).toBe(
      `--readable: ${tmp} holds the temp dir ${tmp} (every shell's private files); name a directory of the project instead`,
    );
    // root holds both the data dir and the workspace root (and is inside the temp dir).
    load([]);
    const outer = join(root, 'outer');
    mkdirSync(join(outer, 'ws'), { recursive: true });
    const withDataDirIn = () =>
      loadConfig(['--data-dir', join(outer, 'data'), '--readable', outer], { HOME: home }, root);
    expect(configErrorOf(withDataDirIn).message).toBe(
      `--readable: ${outer} holds the data dir (the server's own); name a directory of the project instead`,
    );
    const withWorkspaceIn = () =>
      loadConfig(
        ['--data-dir', join(root, 'data'), '--workspace', join(outer, 'ws'), '--readable', outer],
        { HOME: home },
        root,
      );
    expect(configErrorOf(withWorkspaceIn).message).toBe(
      `--readable: ${outer} holds the workspace root (the agents'); name a directory of the project instead`,
    );
  });

  it('refuses a path that is missing or not a directory', () => {
    writeFileSync(join(home, 'project', 'file'), '');
    expect(configErrorOf(() => load(['home/nothing'])).message).toBe(
      `--readable: ${join(home, 'nothing')} does not exist`,
    );
    expect(configErrorOf(() => load(['home/project/file'])).message).toBe(
      `--readable: ${join(home, 'project', 'file')} is not a directory`,
    );
  });
});
