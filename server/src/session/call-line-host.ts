/**
 * What a shell's call line (call-line.ts) works with: the command that holds the terminal, and
 * the few operations the shell lends it. One reason to change: what the two share.
 */
import type { ShellDialect } from '../pty/dialect.ts';
import type { ProcStat } from '../pty/proc-probe.ts';
import type { CallRun } from './call-run.ts';
import type { HumanControl } from './human-control.ts';
import type { ShellDisplay } from './shell-display.ts';
import type { ShellFiles } from './shell-files.ts';
import type { ShellProcess } from './shell-process.ts';
import type { ShellStatus } from './shell-status.ts';

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
  /** A person holds the controls, or is handing them back. */
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

/** The shell's parts its call line's host is made of (some made after the call line). */
export interface CallLineHostParts {
  readonly pty: ShellProcess;
  readonly files: ShellFiles;
  readonly status: ShellStatus;
  readonly output: ShellDisplay;
  readonly dialect: ShellDialect;
  human(): HumanControl;
  /** The agent's call in flight, if any. */
  run(): CallRun | null;
}

/** What the prompt and call-line machine may do with a shell. */
export function callLineHostOf(parts: CallLineHostParts): CallLineHost {
  const { pty, files, status, output } = parts;
  return {
    get pid() {
      return pty.pid;
    },
    stat: () => pty.stat(),
    get run() {
      return parts.run();
    },
    get humanControlled() {
      return parts.human().held;
    },
    ownGroupInterrupt: parts.dialect.ownGroupInterrupt,
    write: (data) => pty.write(data),
    display: (data) => output.show(data),
    backAtPrompt: () => void parts.human().backAtPrompt(),
    commandUnread: () => !files.commandTaken(),
    cancelCommand: () => files.cancelCommand(),
    commandEnded: (exitCode) => {
      status.lastExitCode = exitCode;
      status.set('idle');
      parts.run()?.complete(exitCode);
    },
  };
}
