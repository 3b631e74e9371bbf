/**
 * A shell's start-up: the integration installed within a time limit, and the promise every
 * call waits on until the ready mark and the first prompt (or that rejects with why the
 * shell could not start).
 */
import { JUMPSEAT_ERR_SHELL_UNAVAILABLE, JumpseatError } from '../errors.ts';
import { MARK_IDENT } from '../pty/marks.ts';
import type { PtyExit } from '../pty/pty-process.ts';

/** A shell that has not printed its ready mark by then is reported as unavailable. */
const START_TIMEOUT_MS = 15_000;

/** What installing the integration takes from the shell. */
export interface Installation {
  /** The dialect's name, for the messages. */
  readonly name: string;
  /** Prepares the integration; resolves with the line that installs it. */
  prepare(): Promise<string>;
  /** The line is ready (typed unless the launch ran the integration). */
  prepared(line: string): void;
  /** Ends the shell that did not start. */
  reset(): void;
  /** What the shell's processes are doing now ('' if nothing is known), said when it hangs. */
  stillRunning?(): string;
}

export class ShellStartUp {
  /** Resolves when the integration is installed and the first prompt is up. */
  readonly ready: Promise<void>;
  private markReady!: () => void;
  private failStart!: (error: Error) => void;
  private becameReady = false;
  private failed = false;
  private abandoned = false;
  private output: Buffer = Buffer.alloc(0);

  constructor() {
    this.ready = new Promise((resolve, reject) => {
      this.markReady = resolve;
      this.failStart = reject;
    });
    this.ready.catch(() => undefined);
  }

  /** Whether the start was ended on purpose (a reset or a close meanwhile): no failure. */
  get wasAbandoned(): boolean {
    return this.abandoned;
  }

  /**
   * The shell is being ended before it was ready (a reset, a close): its start is refused
   * now, and its time limit no longer runs (a no-op once it is ready or has failed).
   */
  abandon(): void {
    if (this.becameReady || this.failed) return;
    this.abandoned = true;
    this.fail(
      new JumpseatError(JUMPSEAT_ERR_SHELL_UNAVAILABLE, 'the shell was ended during start-up'),
    );
  }

  /** The shell is ready. */
  succeed(): void {
    this.becameReady = true;
    this.output = Buffer.alloc(0);
    this.markReady();
  }

  /**
   * Output of the shell before it is ready, as read: the launcher's or the sandbox's complaint
   * is there (the screen hides the start-up). Only the last START_OUTPUT_BYTES are kept.
   */
  heard(chunk: Buffer): void {
    if (this.becameReady) return;
    this.output = Buffer.concat([this.output, chunk]);
    if (this.output.length > START_OUTPUT_BYTES)
      this.output = this.output.subarray(this.output.length - START_OUTPUT_BYTES);
  }

  /**
   * The shell `name` exited (a no-op once it is ready). The message quotes the last line it
   * printed meanwhile, other than the typed line `typed` (the integration's install line).
   */
  exited(name: string, exit: PtyExit, typed = ''): void {
    const said = lastLine(this.output.toString('utf8'), typed.trim());
    this.fail(
      new JumpseatError(
        JUMPSEAT_ERR_SHELL_UNAVAILABLE,
        `${name} exited during start-up (${describeExit(exit)})${said === '' ? '' : `: ${said}`}`,
      ),
    );
  }

  /**
   * Resolves true once the shell is ready, false if `deadlineAt` (epoch ms) comes first;
   * rejects as `ready` does when the shell cannot start.
   */
  async readyBy(deadlineAt: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, deadlineAt - Date.now()));
    });
    try {
      return await Promise.race([this.ready.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Installs the integration; a shell not ready within START_TIMEOUT_MS is reset. */
  async install(installation: Installation): Promise<void> {
    const timer = setTimeout(() => {
      // Where it hangs, for the operator's log: a start-up step, the sandbox or the shell.
      const running = installation.stillRunning?.() ?? '';
      this.fail(
        new JumpseatError(
          JUMPSEAT_ERR_SHELL_UNAVAILABLE,
          `${installation.name} did not become ready within ${START_TIMEOUT_MS / 1000} s${running === '' ? '' : ` (its processes: ${running})`}`,
        ),
      );
      installation.reset();
    }, START_TIMEOUT_MS);
    this.ready.finally(() => clearTimeout(timer)).catch(() => undefined);
    try {
      installation.prepared(await installation.prepare());
    } catch (error) {
      this.fail(
        new JumpseatError(JUMPSEAT_ERR_SHELL_UNAVAILABLE, `shell set-up failed: ${String(error)}`),
      );
      installation.reset();
    }
  }

  private fail(error: Error): void {
    if (this.becameReady || this.failed) return;
    this.failed = true;
    this.failStart(error);
  }
}

function describeExit(exit: PtyExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `code ${exit.code}`;
}

/** Longest part of a start-up complaint quoted in the message. */
const SAID_MAX_CHARS = 200;

/** Start-up output kept for the message of a shell that did not start. */
const START_OUTPUT_BYTES = 2048;
/** Terminal sequences (OSC, up to BEL or ST; CSI; two-byte escapes) dropped from the quote. */
const ESCAPES =
  /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-_]/g;

/**
 * C1 controls and invisible format characters (bidi overrides, zero-width), line and paragraph
 * separators: shown as `\uXXXX` in the quote. It goes to the caller in the refusal, and from
 * there to pages and terminals, where a U+202E would reverse the line or a C1 CSI act.
 */
const INVISIBLE = /[\u0080-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * The last non-blank line of `output` other than `typed` and other than what is left of a
 * mark whose introducer the kept window cut off, escapes (the shell's marks) and C0 controls
 * dropped, C1 and format characters made visible, bounded.
 */
function lastLine(output: string, typed: string): string {
  const lines = output
    .replace(ESCAPES, '')
    .split('\n')
    .map((line) => line.replace(/[\u0000-\u001f\u007f]/g, '').trim());
  const last =
    lines
      .filter(
        (line) =>
          line !== '' &&
          !line.includes(`${MARK_IDENT};`) &&
          (typed === '' || !line.includes(typed)),
      )
      .pop() ?? '';
  const bounded = last.length > SAID_MAX_CHARS ? `${last.slice(0, SAID_MAX_CHARS)}…` : last;
  return bounded.replace(
    INVISIBLE,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}
