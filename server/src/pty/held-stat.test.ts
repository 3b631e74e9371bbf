/**
 * A held stat reads the process as it is now, every time, and never anything once that
 * process is gone: not a zombie's leftovers after the reap, and not a later process that
 * was given the same number.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { HeldStat } from './held-stat.ts';

const waitFor = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

it('reads the state of now at every read, and nothing once the process is reaped', async () => {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const pid = child.pid as number;
  const held = new HeldStat(pid);
  try {
    // Started, then asleep: the same descriptor sees it change.
    await waitFor(() => held.read()?.state === 'S');
    expect(held.read()).toMatchObject({ pid, state: 'S', ppid: process.pid });
    process.kill(pid, 'SIGSTOP');
    await waitFor(() => held.read()?.state === 'T');
    expect(held.read()?.state).toBe('T');
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    // Reaped by node: the descriptor names that process, which is gone for good.
    expect(held.read()).toBeNull();
    expect(held.read()).toBeNull();
  } finally {
    held.close();
  }
});

it('reads nothing for a process that does not exist', () => {
  // Above the kernel's largest pid (4,194,304): never a process.
  const held = new HeldStat(5_000_000);
  expect(held.read()).toBeNull();
  held.close();
});
