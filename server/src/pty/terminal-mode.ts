/**
 * Acting on a shell's terminal from outside the shell, for a human at the controls: the echo
 * switched on while they type (the agent's shells run with it off), and an interrupt sent to
 * whichever process group holds the terminal's foreground.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readStat } from './proc-probe.ts';

const run = promisify(execFile);
/**
 * stty answers in milliseconds, but a loaded machine may take seconds to start a process. A
 * short bound left the echo off for a person who took the controls (their keys not shown; the
 * suspected cause of the Playwright example's flake in CI10); `stty` on a pty does not block,
 * so the bound only keeps a terminal gone wrong from holding the hand-over for good.
 */
const STTY_TIMEOUT_MS = 10_000;

/**
 * Switches the terminal's echo on or off, only while it reads in canonical (line) mode:
 * a full-screen or line-editing program runs the terminal raw and echoes by itself, and
 * turning echo on under it would print every key twice. Resolves true when the terminal's
 * line echo is now as asked (it already was, or it switched), false when it was left alone.
 */
export async function setLineEcho(ttyPath: string, on: boolean): Promise<boolean> {
  const mode = await readLineMode(ttyPath);
  if (mode === undefined || !mode.canonical) return false;
  if (mode.echo === on) return true;
  try {
    await run('stty', ['-F', ttyPath, on ? 'echo' : '-echo'], { timeout: STTY_TIMEOUT_MS });
    return true;
  } catch {
    return false;
  }
}

/** The terminal's line discipline as it is now. */
export interface LineMode {
  /** Canonical (line) mode: the kernel collects a line; off when a program reads raw keys. */
  readonly canonical: boolean;
  /** The kernel echoes what is typed. */
  readonly echo: boolean;
  /** Ctrl-C makes the kernel send SIGINT (`isig`); off when a program takes it as a key. */
  readonly interrupts: boolean;
}

/** Reads the terminal's mode; undefined when it cannot be read (the terminal is gone). */
export async function readLineMode(ttyPath: string): Promise<LineMode | undefined> {
  if (ttyPath === '') return undefined;
  try {
    const { stdout } = await run('stty', ['-F', ttyPath, '-a'], { timeout: STTY_TIMEOUT_MS });
    return {
      canonical: /(^|\s)icanon(\s|$)/.test(stdout),
      interrupts: /(^|\s)isig(\s|$)/.test(stdout),
      echo: /(^|\s)echo(\s|$)/.test(stdout),
    };
  } catch {
    return undefined;
  }
}

/**
 * SIGINT to the terminal's foreground process group, as Ctrl-C would. With `onlyJobs`, not
 * when the shell itself holds the foreground (at its prompt there is nothing to stop).
 * Resolves whether a signal was sent.
 */
export async function interruptForeground(shellPid: number, onlyJobs = false): Promise<boolean> {
  const stat = await readStat(shellPid);
  if (!stat || stat.tpgid <= 0) return false;
  if (onlyJobs && stat.tpgid === stat.pgrp) return false;
  try {
    process.kill(-stat.tpgid, 'SIGINT');
    return true;
  } catch {
    return false;
  }
}
