import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTimeOf } from '../pty/proc-probe.ts';
import { Cgroups, type ShellCgroup } from './cgroups.ts';

const cgroups = Cgroups.detect('0123456789abcdef');
const CI = process.env.CI === 'true' || process.env.CI === '1';
if (!cgroups.holds('cpu')) {
  // As root a cpu cgroup can be made on every machine CI runs on; as nobody it cannot.
  if (CI && process.getuid?.() === 0) throw new Error('cgroups: no cpu cgroup can be made here');
  process.stdout.write('cgroups: NOT RUN — no cpu cgroup can be made here (CI runs it as root)\n');
}

/** The share file of the shell's cpu group: `cpu.weight` (v2) or `cpu.shares` (v1). */
function shareOf(procFiles: readonly string[]): { file: string; value: number } {
  for (const procs of procFiles) {
    for (const name of ['cpu.weight', 'cpu.shares']) {
      const file = join(dirname(procs), name);
      try {
        return { file: name, value: Number(readFileSync(file, 'utf8').trim()) };
      } catch {
        // Not this hierarchy's, or not this version's.
      }
    }
  }
  throw new Error('the shell has no cpu group');
}

/** A shell's group with CPU weight `cpuWeight` and no memory limit. */
function groupWithWeight(cpuWeight: number): ShellCgroup {
  const group = cgroups.create({
    maxProcesses: 64,
    maxMemoryBytes: undefined,
    cpuWeight,
    cpuMax: undefined,
  });
  if (group === null) throw new Error('no shell cgroup could be made');
  return group;
}

describe.runIf(cgroups.holds('cpu'))('a shell cgroup', () => {
  it('starts at the configured CPU share, yields the least one at a stop, and gets it back', () => {
    const group = groupWithWeight(300);
    try {
      const before = shareOf(group.procFiles);
      // 300 as v2's weight, or v1's shares scaled from it (1024 per 100).
      expect(before.value).toBe(before.file === 'cpu.weight' ? 300 : 3072);
      group.yieldCpu();
      const after = shareOf(group.procFiles);
      expect(after.value).toBe(after.file === 'cpu.weight' ? 1 : 2);
      // Once the stop has signalled every shell, what is still dying gets its share back.
      cgroups.restoreYielded();
      expect(shareOf(group.procFiles).value).toBe(before.value);
    } finally {
      group.remove();
    }
    // Gone with the group: a yield after the removal changes nothing and throws nothing.
    expect(() => group.yieldCpu()).not.toThrow();
  });
});

describe.runIf(cgroups.holds('cpu'))('the leftovers of a dead run', () => {
  it("are told by the run's pid and start time: a pid another process now has is still dead", async () => {
    // Another process, alive, standing for one that was given a dead server's pid.
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    await new Promise((resolve) => other.once('spawn', resolve));
    const pid = other.pid as number;
    const started = startTimeOf(pid) as string;
    const group = groupWithWeight(100);
    const parent = dirname(dirname(group.procFiles[0] as string));
    const named = {
      reused: join(parent, `jumpseat-0123456789abcdef-${pid}.${Number(started) + 1}-aaaaaa`),
      alive: join(parent, `jumpseat-0123456789abcdef-${pid}.${started}-bbbbbb`),
      older: join(parent, `jumpseat-0123456789abcdef-${pid}-cccccc`),
    };
    for (const dir of Object.values(named)) mkdirSync(dir);
    try {
      const left = cgroups.leftovers();
      // The reused pid's group only: this server's own is alive, the one named for the other
      // process as it is is alive, and an older name (no start time) is told by the pid alone.
      expect(left.groups).toBe(1);
      expect(left.remove()).toBe(true);
      expect(() => rmdirSync(named.reused)).toThrow(/ENOENT/);
    } finally {
      for (const dir of [named.alive, named.older]) rmdirSync(dir);
      group.remove();
      other.kill('SIGKILL');
    }
  });
});

describe.runIf(cgroups.holds('cpu'))('a group released while its processes still die', () => {
  it('stays only until they have left: the stop removes it then, within its bound', async () => {
    const member = spawn('sleep', ['30'], { stdio: 'ignore' });
    await new Promise((resolve) => member.once('spawn', resolve));
    const group = groupWithWeight(100);
    for (const procs of group.procFiles) writeFileSync(procs, String(member.pid));
    try {
      // Released as a stop releases: the tree was signalled, nobody watched it die.
      group.remove();
      expect(group.procFiles.filter((procs) => existsSync(dirname(procs)))).toEqual(
        group.procFiles,
      );
      // Still there while its member lives: the bound ends the wait, and says one is left.
      expect(await cgroups.removeLingering(150)).toBeGreaterThan(0);
      member.kill('SIGKILL');
      expect(await cgroups.removeLingering(10_000)).toBe(0);
      expect(group.procFiles.filter((procs) => existsSync(dirname(procs)))).toEqual([]);
    } finally {
      member.kill('SIGKILL');
      group.remove();
    }
  });
});
