import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { readCallsNow, treeSummary } from './proc-probe.ts';

/** Process groups started here, ended whole (the sleep with its sh). */
const groups: number[] = [];
afterEach(() => {
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
  }
});

describe('treeSummary', () => {
  it('names a process and its descendants with their states, breadth first', async () => {
    const child = spawn('sh', ['-c', 'sleep 30 & echo up; wait'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    });
    const pid = child.pid as number;
    groups.push(pid);
    await new Promise((resolve) => child.stdout.once('data', resolve));
    // The sleep may still be a copy of sh for a moment after `echo up`.
    let summary = '';
    for (let i = 0; i < 500 && !/, sleep /.test(summary); i++) {
      summary = treeSummary(pid);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The wait channel is a kernel function (`do_wait`, `sigsuspend.isra.0`).
    expect(summary).toMatch(/^sh \([SR](, [\w.]+)?\), sleep \([SR](, [\w.]+)?\)$/);
    process.kill(-pid, 'SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(treeSummary(pid)).toBe('');
  });
});

describe('readCallsNow', () => {
  it('counts a blocked read once it returns with input, and nothing for a process gone', async () => {
    const cat = spawn('cat', [], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    const pid = cat.pid as number;
    groups.push(pid);
    const echoed = () => new Promise((resolve) => cat.stdout.once('data', resolve));
    let seen = echoed();
    cat.stdin.write('first\n');
    await seen;
    // cat is back in its read on the pipe, or about to be: the count stays until input comes.
    const blocked = readCallsNow(pid);
    expect(blocked).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readCallsNow(pid)).toBe(blocked);
    seen = echoed();
    cat.stdin.write('second\n');
    await seen;
    expect(readCallsNow(pid)).toBeGreaterThan(blocked as number);
    cat.stdin.end();
    await new Promise((resolve) => cat.once('exit', resolve));
    expect(readCallsNow(pid)).toBeNull();
  });
});
