/**
 * A Ctrl-C typed just as bash starts the line's job: at a bare terminal (bash in a PTY, the
 * key written the moment the line shows) 2 to 7 of these 40 rounds left `sleep 300` running
 * on this machine. Carried by writeTypedInterrupt, none did in 1,200 rounds beside two CPU hogs.
 */
import { afterEach, expect, it } from 'vitest';
import { shellAtPrompt } from '../../test/support/host-processes.ts';
import { until } from '../../test/support/until.ts';
import { type PtyProcess, spawnPty } from '../pty/pty-process.ts';
import { writeTypedInterrupt } from './typed-interrupt.ts';

/** Rounds: at one in ten lost, forty would all pass without the carried interrupt once in 70. */
const ROUNDS = 40;
/** The prompt comes back in milliseconds after a job stops; `sleep 300` ran on without it. */
const PROMPT_LIMIT_MS = 5000;
const PROMPT = 'typed$ ';
/** Faster than anyone types a command after seeing a prompt. */
const PERSON_KEY_MS = 100;

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

/** An interactive bash with job control in a PTY, and what it has printed since `mark()`. */
function bash(): { pty: PtyProcess; since: () => string; mark: () => void } {
  const pty = spawnPty({
    file: '/bin/bash',
    args: ['--noprofile', '--norc', '-i'],
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', PS1: PROMPT },
    cols: 120,
    rows: 30,
  });
  started.push(pty);
  let output = '';
  pty.onData((chunk) => {
    output += chunk.toString('utf8');
  });
  return {
    pty,
    since: () => output,
    mark: () => {
      output = '';
    },
  };
}

it('a Ctrl-C typed as the line starts its job stops the job, every time', async () => {
  const shell = bash();
  expect(await until(() => shell.since().endsWith(PROMPT), PROMPT_LIMIT_MS)).toBe(true);
  const ranOn: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    shell.mark();
    shell.pty.write(`sleep 300; echo ran-on-${round}\r`);
    // The moment a test's `press` comes: the line shows; at once, or a millisecond or two on.
    expect(await until(() => shell.since().includes(`ran-on-${round}`), PROMPT_LIMIT_MS)).toBe(
      true,
    );
    const delayMs = round % 3;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    writeTypedInterrupt(
      shell.pty.pid,
      () => shell.pty.write('\x03'),
      () => true,
    );
    if (!(await until(() => shellAtPrompt(shell.pty.pid, 'sleep'), PROMPT_LIMIT_MS))) {
      ranOn.push(round);
      shell.pty.write('\x03'); // pressed again, as a person would
      expect(await until(() => shellAtPrompt(shell.pty.pid, 'sleep'), PROMPT_LIMIT_MS)).toBe(true);
    }
  }
  expect(ranOn).toEqual([]);
}, 120_000);

it('a Ctrl-C at the prompt leaves a background job alone', async () => {
  const shell = bash();
  expect(await until(() => shell.since().endsWith(PROMPT), PROMPT_LIMIT_MS)).toBe(true);
  shell.pty.write('sleep 300 & echo "bg=$!"\r');
  expect(await until(() => /bg=\d+/.test(shell.since()), PROMPT_LIMIT_MS)).toBe(true);
  const background = Number(/bg=(\d+)/.exec(shell.since())?.[1]);
  expect(await until(() => shell.since().endsWith(PROMPT), PROMPT_LIMIT_MS)).toBe(true);
  shell.mark();
  writeTypedInterrupt(
    shell.pty.pid,
    () => shell.pty.write('\x03'),
    () => true,
  );
  expect(await until(() => shell.since().endsWith(PROMPT), PROMPT_LIMIT_MS)).toBe(true);
  // Brought to the foreground within the follow-up's second, it must not get the old Ctrl-C
  // (typed as fast as a person could: the prompt shown for a tenth of a second).
  await new Promise((resolve) => setTimeout(resolve, PERSON_KEY_MS));
  shell.mark();
  shell.pty.write('fg\r');
  await new Promise((resolve) => setTimeout(resolve, 1200));
  expect(shell.since()).not.toMatch(/typed\$ $/);
  expect(() => process.kill(background, 0)).not.toThrow();
  shell.pty.write('\x03');
  expect(await until(() => shell.since().endsWith(PROMPT), PROMPT_LIMIT_MS)).toBe(true);
});
