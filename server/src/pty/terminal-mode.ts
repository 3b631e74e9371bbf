/**
 * Acting on a shell's terminal from outside the shell, for a human at the controls: the echo
 * switched on while they type (the agent's shells run with it off), and an interrupt sent to
 * whichever process group holds the terminal's foreground. The terminal is reached through a
 * descriptor opened while it is still the shell's (own-terminal.ts), never by its path alone.
 */
import { spawn } from 'node:child_process';
import type { FileHandle } from 'node:fs/promises';
import type { TerminalOpener } from './own-terminal.ts';
import { readStat } from './proc-probe.ts';

/**
 * stty answers in milliseconds, but a loaded machine may take seconds to start a process;
 * `stty` on a pty does not block, so the bound only keeps a terminal gone wrong from holding
 * the hand-over for good.
 */
const STTY_TIMEOUT_MS = 10_000;

/**
 * Switches the terminal's echo on or off, only while it reads in canonical (line) mode:
 * a full-screen or line-editing program runs the terminal raw and echoes by itself, and
 * turning echo on under it would print every key twice. Resolves true when the terminal's
 * line echo is now as asked (it already was, or it switched), false when it was left alone
 * (that, or the terminal is not the shell's any more).
 */
export async function setLineEcho(openTerminal: TerminalOpener, on: boolean): Promise<boolean> {
  const terminal = await openTerminal();
  if (terminal === null) return false;
  try {
    const mode = await modeOf(terminal);
    if (mode === undefined || !mode.canonical) return false;
    if (mode.echo === on) return true;
    await stty(terminal, [on ? 'echo' : '-echo']);
    return true;
  } catch {
    return false;
  } finally {
    await terminal.close();
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

/** Reads the terminal's mode; undefined when it cannot be read (it is gone, or not the shell's). */
export async function readLineMode(openTerminal: TerminalOpener): Promise<LineMode | undefined> {
  const terminal = await openTerminal();
  if (terminal === null) return undefined;
  try {
    return await modeOf(terminal);
  } finally {
    await terminal.close();
  }
}

async function modeOf(terminal: FileHandle): Promise<LineMode | undefined> {
  try {
    const stdout = await stty(terminal, ['-a']);
    return {
      canonical: /(^|\s)icanon(\s|$)/.test(stdout),
      interrupts: /(^|\s)isig(\s|$)/.test(stdout),
      echo: /(^|\s)echo(\s|$)/.test(stdout),
    };
  } catch {
    return undefined;
  }
}

/** Runs `stty` on the open terminal (its stdin); resolves with what it printed. */
function stty(terminal: FileHandle, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('stty', args, {
      stdio: [terminal.fd, 'pipe', 'pipe'],
      timeout: STTY_TIMEOUT_MS,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else {
        const why = signal === null ? `exit code ${code}` : `signal ${signal}`;
        reject(
          new Error(
            `stty ${args.join(' ')}: ${why}: ${Buffer.concat(err).toString('utf8').trim()}`,
          ),
        );
      }
    });
  });
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
