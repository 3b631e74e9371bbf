/**
 * What a shell's call line (call-line.ts) works with: the command that holds the terminal, and
 * the few operations the shell lends it. One reason to change: what the two share.
 */
import type { ProcStat } from '../pty/proc-probe.ts';
import type { CallRun } from './call-run.ts';

/** The command that holds the terminal: what `info()` reports as current, and since when. */
export interface ForegroundCommand {
  readonly nonce: string;
  readonly command: string;
  readonly since: Date;
}

/** What the call line needs from its shell. */
export interface CallLineHost {
  /** The shell process itself, as the host numbers it. */
  readonly pid: number;
  /** The shell process's stat now, read at once; null once it is gone. */
  stat(): ProcStat | null;
  /** The agent's call in flight, if any. */
  readonly run: CallRun | null;
  /** A person holds the controls. */
  readonly humanControlled: boolean;
  /** How an interrupt reaches a command in the shell's own group (see ShellDialect). */
  readonly ownGroupInterrupt: 'group' | 'shell-first';
  write(data: string): void;
  display(data: Buffer): void;
  /** The prompt is up after a line that was not ours (a human may type again). */
  backAtPrompt(): void;
  /** The integration has not marked the command file taken yet (see the dialects). */
  commandUnread(): boolean;
  /** Replaces the command file's command by nothing; returns the new nonce. */
  cancelCommand(): string;
  /** The foreground command ended with `exitCode`. */
  commandEnded(exitCode: number): void;
}
