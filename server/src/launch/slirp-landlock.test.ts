import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { landlockPrelude, landlockShortfall } from './slirp-landlock.ts';

const CI = process.env.CI === 'true' || process.env.CI === '1';

/** Landlock's ABI version here, or why there is none. */
function landlockAbi(): number | string {
  try {
    const out = execFileSync('perl', ['-e', 'print syscall(444, 0, 0, 1)'], { encoding: 'utf8' });
    const abi = Number(out);
    return abi >= 1 ? abi : 'the kernel has no Landlock (or it is not among its LSMs)';
  } catch (error) {
    return `perl failed: ${(error as Error).message}`;
  }
}

const abi = process.arch === 'x64' || process.arch === 'arm64' ? landlockAbi() : 'not x64/arm64';
if (typeof abi === 'string') {
  if (CI) throw new Error(`slirp-landlock tests: ${abi}; CI=true, so this fails the run`);
  process.stdout.write(`slirp-landlock tests: NOT RUN — ${abi}\n`);
}

const scratch = mkdtempSync(join(tmpdir(), 'jumpseat-landlock-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `command` under the step; its stdout and stderr together, and its status. */
function confined(command: string[], held: string[] = []) {
  const [file, ...args] = landlockPrelude(command, held);
  const run = spawnSync(file as string, args, { encoding: 'utf8' });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe.runIf(typeof abi === 'number')('slirp4netns under Landlock', () => {
  it('is confined here, so the banner has no warning about it', () => {
    expect(landlockShortfall()).toBeNull();
  });

  it('is said to run unconfined where the kernel answers the Landlock call with ENOSYS', () => {
    // 999 is no system call on x64 or arm64: what a kernel without Landlock answers.
    expect(landlockShortfall(999)).toBe(
      'the kernel has no Landlock for it (Function not implemented)',
    );
  });

  it('runs slirp4netns itself', () => {
    const run = confined(['slirp4netns', '--version']);
    expect(run.status).toBe(0);
    expect(run.out).toMatch(/^slirp4netns version /);
    expect(run.out).not.toContain('without Landlock');
  });

  it('reads no file of the server user outside what it needs, and writes none', () => {
    const secret = join(scratch, 'tokens.json');
    writeFileSync(secret, 'secret\n');
    expect(execFileSync('cat', [secret], { encoding: 'utf8' })).toBe('secret\n');
    const run = confined([
      '/bin/sh',
      '-c',
      `cat ${secret}; head -c 1 /proc/${process.pid}/environ; touch ${join(scratch, 'new')}; echo done`,
    ]);
    expect(run.out).toContain(`${secret}: Permission denied`);
    expect(run.out).toContain('environ');
    expect(run.out).not.toContain('secret\n');
    expect(run.out.match(/Permission denied/g)?.length).toBe(3);
    expect(run.out).toContain('done');
  });

  it('enters a namespace it was given as a held descriptor, and no other process’s', () => {
    const mine = `/proc/${process.pid}/ns/net`;
    const expected = readlinkSync(mine);
    const held = confined(['/bin/sh', '-c', `readlink ${mine}`], [mine]);
    expect(held.status).toBe(0);
    expect(held.out.trim()).toBe(expected);
    // Not held: another process's namespace files are out of a confined process's reach.
    const notHeld = confined(['/bin/sh', '-c', `readlink ${mine} || echo refused`]);
    expect(notHeld.out).toContain('refused');
  });
});
