import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locatePwsh } from './pwsh-executable.ts';

let root: string;
let onPath: string;
let home: string;
let empty: string;

/** An executable file named pwsh in `dir`. */
function fakePwsh(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'pwsh');
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-pwsh-locate-'));
  onPath = join(root, 'bin');
  home = join(root, 'home');
  empty = join(root, 'empty');
  mkdirSync(empty);
  fakePwsh(onPath);
  fakePwsh(join(home, '.dotnet', 'tools'));
  // Not executable: must be passed over.
  writeFileSync(join(empty, 'pwsh'), '');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('locatePwsh', () => {
  it('takes an explicit path when it is an executable file, else finds none', () => {
    expect(locatePwsh(join(onPath, 'pwsh'), {})).toBe(join(onPath, 'pwsh'));
    expect(locatePwsh(join(empty, 'pwsh'), { PATH: onPath })).toBeNull();
  });

  it('looks on PATH first, skipping entries that are not executable or not absolute', () => {
    expect(locatePwsh(undefined, { PATH: `:.:${empty}:${onPath}`, HOME: home })).toBe(
      join(onPath, 'pwsh'),
    );
  });

  it('then in ~/.dotnet/tools, where dotnet tool install --global puts it', () => {
    expect(locatePwsh(undefined, { PATH: empty, HOME: home })).toBe(
      join(home, '.dotnet', 'tools', 'pwsh'),
    );
    expect(locatePwsh(undefined, { PATH: empty, HOME: empty })).toBeNull();
  });
});
