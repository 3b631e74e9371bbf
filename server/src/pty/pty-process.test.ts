/**
 * What a process printed just before it exited reaches its listeners, even when the event
 * loop is too busy to read it within node-pty's grace period after the exit.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { signalName, spawnPty } from './pty-process.ts';

/** Holds the event loop, as a busy server would. */
function busy(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

it('delivers the last output of a process that exits while the loop is busy', async () => {
  const lines = 4000;
  const pty = spawnPty({
    file: '/bin/sh',
    // The background sleep keeps the terminal open past the exit, as a sandbox's last
    // processes can: node-pty then destroys its socket after 200 ms instead of reading on.
    args: ['-c', `seq 1 ${lines}; echo last-line; sleep 1 &`],
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cols: 80,
    rows: 24,
  });
  const chunks: Buffer[] = [];
  pty.onData((chunk) => chunks.push(chunk));
  // Busy for 300 ms in every 310: past node-pty's 200 ms wait after the exit, every time.
  const hold = setInterval(() => busy(300), 10);
  const exited = new Promise<void>((resolve) => pty.onExit(() => resolve()));
  await exited;
  clearInterval(hold);
  const text = Buffer.concat(chunks).toString('latin1');
  expect(text).toContain(`${lines}\r\nlast-line`);
});

it('names a signal by its canonical name, never an alias', () => {
  expect(signalName(6)).toBe('SIGABRT');
  expect(signalName(29)).toBe('SIGIO');
  expect(signalName(9)).toBe('SIGKILL');
  expect(signalName(2)).toBe('SIGINT');
});

it('delivers every write whole and in order, whether the terminal takes it at once or later', async () => {
  // Raw mode: the terminal passes every byte through; `head` reads exactly what was sent.
  const big = 'abcdefghij'.repeat(30_000); // far past what a terminal holds: written in parts
  const smalls = Array.from({ length: 50 }, (_, i) => `<${i}>`);
  const sent = big + smalls.join('') + big.slice(0, 1000);
  // The reader starts only once the writes are queued: a reader on the other core could
  // otherwise keep up with the kernel taking the big write (seen once beside two CPU hogs).
  const dir = mkdtempSync(join(tmpdir(), 'jumpseat-pty-write-'));
  const go = join(dir, 'go');
  const pty = spawnPty({
    file: '/bin/sh',
    args: [
      '-c',
      `stty raw -echo; echo READY; while [ ! -e '${go}' ]; do sleep 0.02; done; head -c ${sent.length} | sha256sum`,
    ],
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cols: 80,
    rows: 24,
  });
  let output = '';
  const ready = new Promise<void>((resolve) =>
    pty.onData((chunk) => {
      output += chunk.toString('latin1');
      if (output.includes('READY')) resolve();
    }),
  );
  const exited = new Promise<void>((resolve) => pty.onExit(() => resolve()));
  await ready;
  pty.write(big);
  // The terminal took only a part at once: node-pty holds the rest, and what follows queues.
  expect(pty.unwrittenBytes()).toBeGreaterThan(0);
  for (const small of smalls) pty.write(small);
  pty.write(big.slice(0, 1000));
  writeFileSync(go, '');
  await exited;
  rmSync(dir, { recursive: true, force: true });
  const expected = createHash('sha256').update(sent).digest('hex');
  expect(output).toContain(expected);
  // The terminal is gone: a write is dropped, as node-pty drops it, and never throws.
  expect(() => pty.write('after the end')).not.toThrow();
});
