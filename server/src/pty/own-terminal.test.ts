/**
 * A terminal's number is handed to the next terminal opened once its shell has ended: a mode
 * change meant for the ended shell must not reach the shell that got its number.
 */
import { afterEach, expect, it } from 'vitest';
import { openOwnTerminal } from './own-terminal.ts';
import { startTimeOf, terminalOf } from './proc-probe.ts';
import { type PtyProcess, spawnPty } from './pty-process.ts';
import { readLineMode, setLineEcho } from './terminal-mode.ts';

/** Spawns tried for the ended terminal's number (other test files open terminals too). */
const REUSE_ATTEMPTS = 20;

const started: PtyProcess[] = [];

afterEach(() => {
  for (const pty of started.splice(0)) {
    try {
      process.kill(pty.pid, 'SIGKILL');
    } catch {
      // ended already
    }
  }
});

interface Terminal {
  readonly pty: PtyProcess;
  readonly path: string;
  readonly startTime: string | null;
  readonly exited: Promise<void>;
}

async function shell(): Promise<Terminal> {
  const pty = spawnPty({
    file: '/bin/sh',
    args: ['-c', 'stty echo icanon; exec sleep 60'],
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cols: 80,
    rows: 24,
  });
  started.push(pty);
  pty.onData(() => undefined);
  const exited = new Promise<void>((resolve) => pty.onExit(() => resolve()));
  const startTime = startTimeOf(pty.pid);
  for (let tries = 0; tries < 100; tries++) {
    const path = await terminalOf(pty.pid);
    if (path?.startsWith('/dev/pts/')) return { pty, path, startTime, exited };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the test shell has no terminal on its stdin');
}

const opener =
  (t: Terminal, path = t.path) =>
  () =>
    openOwnTerminal(path, t.pty.pid, t.startTime);

it("opens a shell's terminal only while it is that shell's, and never another's by its number", async () => {
  const ended = await shell();
  expect(await readLineMode(opener(ended))).toMatchObject({ canonical: true, echo: true });
  process.kill(ended.pty.pid, 'SIGKILL');
  await ended.exited;

  expect(await openOwnTerminal(ended.path, ended.pty.pid, ended.startTime)).toBeNull();
  expect(await setLineEcho(opener(ended), false)).toBe(false);

  // A new shell on the ended one's number, when the kernel hands it out again.
  let next: Terminal | undefined;
  for (let i = 0; i < REUSE_ATTEMPTS && next === undefined; i++) {
    const candidate = await shell();
    if (candidate.path === ended.path) next = candidate;
  }
  if (next === undefined) {
    process.stdout.write(
      `own-terminal: ${ended.path} was not handed out again in ${REUSE_ATTEMPTS} tries\n`,
    );
    return;
  }
  // The ended shell's hand-back comes late: it leaves the new shell's echo alone.
  expect(await setLineEcho(opener(ended), false)).toBe(false);
  expect(await readLineMode(opener(next))).toMatchObject({ echo: true });
  // The new shell's own hand-back reaches it.
  expect(await setLineEcho(opener(next), false)).toBe(true);
  expect(await readLineMode(opener(next))).toMatchObject({ canonical: true, echo: false });
  // A path that is not on the shell's stdin is not its terminal.
  expect(await openOwnTerminal('/dev/null', next.pty.pid, next.startTime)).toBeNull();
});
