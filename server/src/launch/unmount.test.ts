import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unmountMany } from './unmount.ts';

const asRoot = process.getuid?.() === 0;
if (!asRoot) process.stdout.write('unmount: NOT RUN — mounting needs root (CI runs it as root)\n');

/** Mount points as /proc/self/mountinfo lists them, its octal escapes (`\\040`) decoded. */
function mountPoints(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) =>
      (line.split(' ')[4] ?? '').replace(/\\([0-7]{3})/g, (_, code: string) =>
        String.fromCharCode(Number.parseInt(code, 8)),
      ),
    );
}

function mounted(point: string): boolean {
  return mountPoints().includes(point);
}

describe.runIf(asRoot)('unmountMany', () => {
  let root = '';
  let busy: ChildProcess | undefined;
  afterEach(() => {
    busy?.kill('SIGKILL');
    for (const point of mountPoints()) {
      if (point.startsWith(`${root}/`)) execFileSync('umount', ['-l', point]);
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('unmounts every point given, and detaches one still in use', async () => {
    root = mkdtempSync(join(tmpdir(), 'jumpseat-unmount-'));
    // Names as agents' workspaces may have them, a space included (mountinfo escapes it).
    const points = ['a', 'b-2', 'with space', 'busy'].map((name) => join(root, name));
    for (const point of points) {
      mkdirSync(point);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', point]);
    }
    // A process working inside keeps that one busy: a plain unmount would fail with EBUSY.
    busy = spawn('sleep', ['30'], { cwd: join(root, 'busy'), stdio: 'ignore' });
    await new Promise((resolve) => busy?.once('spawn', resolve));
    expect(points.filter(mounted)).toEqual(points);

    await unmountMany(points);

    expect(points.filter(mounted)).toEqual([]);
    expect(busy.exitCode).toBeNull();
  });

  it('answers at once for nothing, and survives a point that is not mounted', async () => {
    root = mkdtempSync(join(tmpdir(), 'jumpseat-unmount-'));
    await unmountMany([]);
    const point = join(root, 'plain');
    mkdirSync(point);
    await expect(unmountMany([point, join(root, 'missing')])).resolves.toBeUndefined();
  });
});
