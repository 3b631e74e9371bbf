/**
 * One call in flight on a shell: it captures the output between its marks, probes /proc
 * for a read on the terminal, keeps the deadline, and settles exactly once with how it
 * ended. Completion is event-driven: the end mark settles it in the tick it is scanned.
 */
import type { WaitingReader } from '../pty/terminal-wait.ts';
import type { CallEnding, CallResult, OutputCapture } from './capture.ts';

/** First look at /proc after the command starts: most commands finish before this. */
const FIRST_PROBE_MS = 15;
/** Probe spacing while a call runs ("a few times per 100 ms at most"). */
const PROBE_INTERVAL_MS = 30;
/** After this long, long-running commands are probed less often. */
const PROBE_SLOWDOWN_AFTER_MS = 3000;
const SLOW_PROBE_INTERVAL_MS = 100;
/**
 * A wait on the terminal that returns by itself this soon (`read -t 0.5`) is not yet a
 * program waiting for input: at a terminal it would give up and carry on. It is one once it
 * has waited past its own limit (by WAIT_LIMIT_MARGIN_MS): a program that polls the terminal
 * in a loop (a full-screen program's refresh tick).
 */
const SHORT_WAIT_LIMIT_MS = 1000;
const WAIT_LIMIT_MARGIN_MS = 250;
/**
 * Input typed to a waiting program reaches its read through the kernel's own worker, late on
 * a busy machine: until this long after typing, that program seen still in the same read has
 * not yet taken it (see `typedTo`). Past it, the input was not for a read (a key whose signal
 * the program ignores, or too few bytes for its read) and the program waits for more.
 */
const INPUT_DELIVERY_BOUND_MS = 2000;
/** How often a call not yet started runs its look before the start (`beforeStart`). */
const BEFORE_START_LOOK_MS = 250;
/** Output set aside after a doubted end mark (see holdOutput) beyond which it is the command's. */
const MAX_HELD_BYTES = 64 * 1024;

/** A process blocked reading the terminal, as the probe finds it (pid, name, its wait's limit). */
export type WaitingProcess = WaitingReader;

export interface CallRunOptions {
  readonly capture: OutputCapture;
  readonly timeoutMs: number;
  /** Who, if anyone, in the foreground is blocked reading the terminal. */
  readonly probe: () => Promise<WaitingProcess | null>;
  /** The text of the current screen, used while a full-screen program waits. */
  readonly screenText: () => Promise<string>;
  /** Ends the shell's whole process tree (deadline or cancellation). */
  readonly reset: () => Promise<void>;
  /** Resolves once the terminal has been quiet for a moment (output still in flight read). */
  readonly quiet: () => Promise<void>;
  /** The shell itself recorded that this call's command ended (its end mark is on its way). */
  readonly endRecorded: () => boolean;
  /** How many read calls the process has made so far; null when that cannot be read. */
  readonly readCalls: (pid: number) => number | null;
  /**
   * Looked at now and then until the command starts, when the probes take over (a shell
   * stopped by a signal between calls is continued here).
   */
  readonly beforeStart?: () => void;
}

export class CallRun {
  readonly result: Promise<CallResult>;
  private resolve!: (result: CallResult) => void;
  private settling = false;
  /** Settling as waiting, output still in flight is taken in. */
  private draining = false;
  /**
   * How the call really ended, learnt while draining: a shell seen reading its terminal
   * twice may have been at its prompt the second time, its end mark still unread.
   */
  private lateEnding: CallEnding | null = null;
  private started = false;
  /** The shell itself was sent a SIGINT for this call (see `shellInterrupted`). */
  private shellSignalled = false;
  private startedAt = 0;
  private probeTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private beforeStartTimer: NodeJS.Timeout | undefined;
  private lastWaiting: WaitingProcess | null = null;
  /** When `lastWaiting` was first seen waiting, in this streak of sightings (Date.now()). */
  private waitingSince = 0;
  /** Deadline time left when the clock was paused; null while it runs. */
  private pausedLeftMs: number | null = null;
  /** Bumped by each pause, so a probe in flight across a pause never schedules another. */
  private probeRound = 0;
  private deadlineAt: number;
  /**
   * Output since an end mark not yet believed (see holdOutput): the command's if that mark
   * turns out forged, the prompt's if it was the real end.
   */
  private held: Uint8Array[] | null = null;
  private heldBytes = 0;
  /** The program input was typed to and its read calls then, until it is seen to take it. */
  private typed: { readonly pid: number; readonly reads: number } | null = null;

  constructor(private readonly options: CallRunOptions) {
    this.result = new Promise((resolve) => {
      this.resolve = resolve;
    });
    this.deadlineAt = Date.now() + options.timeoutMs;
    this.deadlineTimer = setTimeout(() => void this.timeout(), options.timeoutMs);
    const look = options.beforeStart;
    if (look) this.beforeStartTimer = setInterval(look, BEFORE_START_LOOK_MS);
  }

  /**
   * A human took the shell: the deadline stops and nobody probes for a waiting reader (the
   * human is the one answering it). The end mark still settles the call.
   */
  pause(): void {
    if (this.settling || this.pausedLeftMs !== null) return;
    this.pausedLeftMs = Math.max(0, this.deadlineAt - Date.now());
    clearTimeout(this.deadlineTimer);
    clearTimeout(this.probeTimer);
    this.probeRound++;
    this.lastWaiting = null;
  }

  /** The human handed the shell back: the deadline runs on with the time it had left. */
  resume(): void {
    if (this.settling || this.pausedLeftMs === null) return;
    const left = this.pausedLeftMs;
    this.pausedLeftMs = null;
    this.deadlineAt = Date.now() + left;
    this.deadlineTimer = setTimeout(() => void this.timeout(), left);
    if (this.started) this.scheduleProbe(FIRST_PROBE_MS);
  }

  /** The command (or input) began to run: a shell that died before that never ran it. */
  get hasStarted(): boolean {
    return this.started;
  }

  get settled(): boolean {
    return this.settling;
  }

  /** The command (or the input typed to a waiting program) is now running. */
  start(): void {
    if (this.started || this.settling) return;
    this.started = true;
    this.startedAt = Date.now();
    clearInterval(this.beforeStartTimer);
    if (this.pausedLeftMs === null) this.scheduleProbe(FIRST_PROBE_MS);
  }

  /**
   * The call's input is about to be typed to `pid`, blocked reading the terminal: until it
   * makes another read call (the blocked one returned with the input), it is not seen as
   * waiting again. Without this, two probes taken before the kernel handed the input over
   * saw the program still in its read and ended the call as waiting for input.
   */
  typedTo(pid: number): void {
    const reads = this.options.readCalls(pid);
    this.typed = reads === null ? null : { pid, reads };
  }

  /**
   * The interrupt went to the shell itself (its command was starting, or runs in the shell):
   * the line breaks bash then prints to move off the interrupted line (one, or two when a job
   * it was starting died of the signal too) are the terminal's, not the command's output.
   */
  shellInterrupted(): void {
    this.shellSignalled = true;
  }

  /** The shell itself was sent a SIGINT for this call. */
  get interrupted(): boolean {
    return this.shellSignalled;
  }

  write(chunk: Uint8Array): void {
    if (this.shellSignalled && isLineBreaksOnly(chunk)) return;
    if (this.started && (!this.settling || (this.draining && !this.lateEnding))) {
      if (this.held === null) this.options.capture.write(chunk);
      else {
        this.held.push(chunk);
        this.heldBytes += chunk.length;
        // No prompt prints this much: the doubted mark was the command's (and a flood after a
        // forged mark is bounded by the capture's caps, not by the server's memory).
        if (this.heldBytes > MAX_HELD_BYTES) this.keepHeldOutput();
      }
    }
  }

  /**
   * An end mark came while a job held the terminal: what follows is set aside until the
   * shell is seen at its terminal again (the mark was the real end, and the job one its
   * prompt started: `dropHeldOutput`) or another end mark comes (the first was printed by
   * the command: `keepHeldOutput`).
   */
  holdOutput(): void {
    this.keepHeldOutput();
    this.held = [];
    this.heldBytes = 0;
  }

  /** The output set aside was the command's after all. */
  keepHeldOutput(): void {
    const held = this.held;
    this.held = null;
    for (const chunk of held ?? []) this.options.capture.write(chunk);
  }

  /** The output set aside came after the command's end (its prompt's). */
  dropHeldOutput(): void {
    this.held = null;
  }

  complete(exitCode: number): void {
    this.end({ kind: 'completed', exitCode });
  }

  shellExited(code: number | null, signal: string | null): void {
    this.end({ kind: 'shell_exit', code, signal });
  }

  private end(ending: CallEnding): void {
    if (this.draining) this.lateEnding ??= ending;
    else void this.settle(ending);
  }

  /** The shell cannot run calls any more (its integration is gone): reset it and say so. */
  shellBroken(): void {
    void this.settle({ kind: 'shell_exit', code: null, signal: null }, this.options.reset);
  }

  /** The caller went away: the shell is reset, the result discarded. */
  async cancel(): Promise<void> {
    if (this.settling) return;
    await this.settle({ kind: 'cancelled' }, this.options.reset);
  }

  private async timeout(): Promise<void> {
    await this.settle({ kind: 'timeout' }, this.options.reset);
  }

  private scheduleProbe(delayMs: number): void {
    this.probeTimer = setTimeout(() => void this.probeOnce(), delayMs);
  }

  private async probeOnce(): Promise<void> {
    const round = this.probeRound;
    if (this.settling || this.pausedLeftMs !== null) return;
    const waiting = await this.options.probe().catch(() => null);
    // Paused (and maybe resumed, which started a new round) while /proc was read.
    if (this.settling || round !== this.probeRound) return;
    if (waiting && !this.inputTaken(waiting.pid)) {
      this.lastWaiting = null;
      this.scheduleProbe(PROBE_INTERVAL_MS);
      return;
    }
    // Two sightings in a row: the first may be the shell already back at its prompt with
    // the end mark still in flight to us; by the second it would have arrived. On a busy
    // machine it may not have: a shell that recorded this call's end is at its prompt, and
    // the probes go on until its end mark settles the call.
    const again = waiting !== null && this.lastWaiting?.pid === waiting.pid;
    if (again && this.waitedPastLimit(waiting) && !this.options.endRecorded()) {
      await this.settle({ kind: 'waiting_input', processName: waiting.name, pid: waiting.pid });
      return;
    }
    if (!again) this.waitingSince = Date.now();
    this.lastWaiting = waiting;
    const ran = Date.now() - this.startedAt;
    this.scheduleProbe(ran > PROBE_SLOWDOWN_AFTER_MS ? SLOW_PROBE_INTERVAL_MS : PROBE_INTERVAL_MS);
  }

  /** A wait with no limit, or a long one, or one seen going on past its short limit. */
  private waitedPastLimit(waiting: WaitingProcess): boolean {
    const limit = waiting.limitMs;
    if (limit === undefined || limit > SHORT_WAIT_LIMIT_MS) return true;
    return Date.now() - this.waitingSince > limit + WAIT_LIMIT_MARGIN_MS;
  }

  /** `pid` is not the program input was typed to, or it has taken that input (see `typedTo`). */
  private inputTaken(pid: number): boolean {
    const typed = this.typed;
    if (typed === null || typed.pid !== pid) return true;
    if (
      Date.now() - this.startedAt < INPUT_DELIVERY_BOUND_MS &&
      this.options.readCalls(pid) === typed.reads
    ) {
      return false;
    }
    this.typed = null;
    return true;
  }

  private async settle(ending: CallEnding, before?: () => Promise<void>): Promise<void> {
    if (this.settling) return;
    this.settling = true;
    // Output set aside after a doubted end mark, the call ending otherwise (a deadline while
    // the job runs on): the command's, part of what it printed before the end.
    this.keepHeldOutput();
    clearTimeout(this.probeTimer);
    clearTimeout(this.deadlineTimer);
    clearInterval(this.beforeStartTimer);
    if (before) await before().catch(() => undefined);
    // A program seen waiting wrote its prompt (or its screen) before it blocked, but on a
    // busy machine those bytes may still sit in the terminal unread: take them first.
    if (ending.kind === 'waiting_input') {
      this.draining = true;
      await this.options.quiet();
      this.draining = false;
      if (this.lateEnding) ending = this.lateEnding;
    }
    // A full-screen program that waits is shown as its screen, as a person would see it.
    const screen =
      ending.kind === 'waiting_input' && this.options.capture.altScreen
        ? await this.options.screenText()
        : undefined;
    this.resolve({ ending, output: await this.options.capture.finish(screen) });
  }
}

const LF = 0x0a;
const CR = 0x0d;

function isLineBreaksOnly(chunk: Uint8Array): boolean {
  return chunk.length > 0 && chunk.every((byte) => byte === LF || byte === CR);
}
