/**
 * A human at a shell's controls (ARCHITECTURE.md, "Take-over semantics"): exclusive control
 * visible to all, the agent refused meanwhile, echo and line editing for the person typing,
 * what they ran kept for the agent's next result, and the hand-back. The shell lends it the
 * few operations this needs through `ControlledShell`; the prompt and marks stay the shell's.
 */

import type { Viewer } from '../../../shared/src/live.ts';
import { DEFAULT_INPUT_PENDING_MAX_BYTES } from '../config/connection-limits.ts';
import {
  JUMPSEAT_ERR_CONTROLLED,
  JUMPSEAT_ERR_HUMAN_CONTROL,
  JUMPSEAT_ERR_SHELL_UNAVAILABLE,
  JumpseatError,
} from '../errors.ts';
import { Emitter } from '../pty/disposable.ts';
import { interruptForeground, readLineMode, setLineEcho } from '../pty/terminal-mode.ts';
import { isHiddenInput } from './hidden-input.ts';
import { HumanUse } from './human-use.ts';

/**
 * The human at a shell's controls: a viewer of its live stream (one person in two tabs is
 * two viewers, so control belongs to the connection).
 */
export type Controller = Viewer;

/** What human control needs from the shell it controls. */
export interface ControlledShell {
  readonly alive: boolean;
  /** A person's own shell, no agent's (yet): releasing it hands nothing back. */
  readonly personal: boolean;
  /** The terminal's device path (for its echo setting). */
  readonly ttyPath: string;
  readonly pid: number;
  /** An agent's command holds the terminal (running, or waiting for input). */
  readonly commandInForeground: boolean;
  /** The dialect's shell answers cursor queries itself (see ShellDialect). */
  readonly answersCursorQueries: boolean;
  /** The text on the cursor's line, once every displayed byte is on the screen. */
  cursorLineText(): Promise<string>;
  /** Line editing on or off, as `controlled` calls for, when the shell is at its prompt. */
  switchEditing(): Promise<void>;
  write(keys: string): void;
  /** Written keys the terminal has not taken yet (its program does not read). */
  unwrittenBytes(): number;
  /** Forgets written keys that have not begun going to the terminal. */
  dropUnwritten(): void;
  pauseCall(): void;
  resumeCall(): void;
  /** The controller's size, or the agent's when called without one. */
  resize(size?: { cols: number; rows: number }): void;
  /** A program the human left in the foreground becomes the agent's waiting program. */
  adoptHumanCommand(): Promise<void>;
  /** The controller changed (also the state `info()` reports). */
  changed(): void;
}

/**
 * A prompt for something secret, on the cursor's line: the echo stays off when a human takes
 * over there (agents' shells run with echo off, so a password prompt looks like any other
 * read of the terminal; its words are what tells them apart).
 */
const SECRET_PROMPT = /\b(password|passphrase|passcode|pin|secret|token|credentials?)\b/i;
/** Kill-line (Ctrl-U): clears what a human left typed but not entered, before the agent types. */
const KILL_LINE = '\x15';
/** A terminal's answer to a cursor-position query (`ESC [ row ; col R`). */
const CURSOR_REPORT = /\x1b\[\d+;\d+R/g;
/** Ctrl-C: the interrupt key, never dropped and never queued behind other keys. */
const INTERRUPT_KEY = '\x03';

/** What became of one frame of keys: written in turn, or dropped at once (and why). */
export interface TypedKeys {
  readonly written: Promise<void>;
  readonly dropped: {
    readonly droppedBytes: number;
    readonly pendingBytes: number;
    readonly limitBytes: number;
  } | null;
}

/** What a change of controller came from, beyond who holds them now. */
export interface ControlChangeCause {
  /** Someone in charge took the controls from this controller. */
  readonly takenFrom?: Controller;
  /** The controller typed nothing for the idle limit. */
  readonly reason?: 'idle';
}

export class HumanControl {
  readonly onControl = new Emitter<Controller | null>();
  /** Someone interrupted the foreground program (and a SIGINT was sent). */
  readonly onInterrupt = new Emitter<Controller>();
  /**
   * Keystrokes the controller typed, as sent to the shell (recorded only when configured);
   * `hidden` when the terminal hid them (a password): they must not be kept anywhere.
   */
  readonly onInput = new Emitter<{
    readonly by: Controller;
    readonly keys: string;
    readonly hidden: boolean;
  }>();
  private control: Controller | null = null;
  private readonly use = new HumanUse();
  /** Echo was not switched on at take-over: due once the shell is back at its prompt. */
  private echoDue = false;
  /** Keystrokes being written, one batch after another (each looks at the terminal first). */
  private typing: Promise<void> = Promise.resolve();
  /**
   * Keys that came while an earlier batch was being written, waiting their turn: frames from
   * the same controller join it, so a burst (fast typing, a paste) costs one look at the
   * terminal's mode (a `stty` run), not one per frame.
   */
  private queued: { readonly id: string; keys: string; readonly written: Promise<void> } | null =
    null;
  /** Batches given to `typing` and not written yet: a frame that comes meanwhile waits. */
  private batchesInFlight = 0;
  /** Bytes of keys accepted and not yet given to the terminal. */
  private waitingBytes = 0;
  /** Bumped by Ctrl-C: batches accepted before it are dropped, not written. */
  private generation = 0;
  /** Why the controls changed hands, while `onControl` fires for that change. */
  private cause: ControlChangeCause = {};
  /** A release in progress: agent calls wait for the shell to be theirs again. */
  private handingBack: Promise<void> | null = null;

  constructor(private readonly shell: ControlledShell) {}

  get controller(): Controller | null {
    return this.control;
  }

  /** Why the controls are changing hands; read by `onControl` listeners during the event. */
  get changeCause(): ControlChangeCause {
    return this.cause;
  }

  /**
   * Someone in charge (the admin, or the owner of a person's own shell) takes the controls
   * from whoever holds them: straight over, like a granted request, the previous holder named
   * in the change. Resolves with who held them (null: nobody did, and it was a plain take).
   */
  async seize(who: Controller): Promise<Controller | null> {
    const previous = this.control;
    if (previous === null || previous.id === who.id) {
      await this.take(who);
      return null;
    }
    if (!this.shell.alive) {
      throw new JumpseatError(JUMPSEAT_ERR_SHELL_UNAVAILABLE, 'the shell has exited');
    }
    this.control = who;
    this.announce({ takenFrom: previous });
    return previous;
  }

  /**
   * Takes the controls: exclusive, visible to all. A running agent call keeps waiting with
   * its deadline paused; new agent calls are refused with 409 until release.
   */
  async take(who: Controller): Promise<void> {
    if (!this.shell.alive) {
      throw new JumpseatError(JUMPSEAT_ERR_SHELL_UNAVAILABLE, 'the shell has exited');
    }
    if (this.control?.id === who.id) return;
    if (this.control) {
      throw new JumpseatError(JUMPSEAT_ERR_CONTROLLED, `${this.control.name} holds the controls`);
    }
    this.control = who;
    this.shell.pauseCall();
    // Echo on for the human, before their first key arrives; never under a password prompt:
    // it switched echo off itself, and everyone watches.
    const secret =
      this.shell.commandInForeground && SECRET_PROMPT.test(await this.shell.cursorLineText());
    // Left off (a secret, or a program running the terminal raw): due back at the prompt.
    this.echoDue = secret || !(await setLineEcho(this.shell.ttyPath, true));
    await this.shell.switchEditing();
    if (this.control !== who) return;
    this.announce();
  }

  /**
   * Hands the shell back to the agent: size, echo, editing and the deadline as they were. A
   * person's own shell stays as the human left it, for whoever takes the controls next.
   */
  async release(id: string, reason?: 'idle'): Promise<void> {
    if (this.control?.id !== id) return;
    this.control = null;
    this.echoDue = false;
    if (!this.shell.personal) await this.handingBackDone();
    this.shell.resumeCall();
    this.announce(reason === undefined ? {} : { reason });
  }

  /**
   * A person's shell was just given to an agent: whoever holds the controls lets go, and the
   * shell is set up for the agent as after any release.
   */
  async handToAgent(): Promise<void> {
    const held = this.control !== null;
    this.control = null;
    this.echoDue = false;
    await this.handingBackDone();
    if (held) this.announce();
  }

  /**
   * The controller hands the keyboard straight to another viewer (a granted request): no
   * hand-back to the agent in between, echo and editing stay as they are.
   */
  pass(fromId: string, to: Controller): void {
    this.requireController(fromId);
    if (to.id === fromId) return;
    this.control = to;
    this.announce();
  }

  /**
   * Keystrokes from the human at the controls, in the order they came. Before each batch is
   * written, the terminal's mode says whether it is a hidden answer (see hidden-input.ts):
   * looked at first, so the Enter that ends a password read still counts as hidden.
   *
   * Bounded: while more than `maxPendingBytes` wait for the shell (a program that does not
   * read its input), a frame is dropped whole, never queued. Ctrl-C jumps the queue: what
   * waits before it is dropped (ours and node-pty's), as a terminal's interrupt flushes its
   * input, and it goes next, after at most the look at the terminal of a batch in flight.
   */
  input(id: string, data: string, maxPendingBytes = DEFAULT_INPUT_PENDING_MAX_BYTES): TypedKeys {
    this.requireController(id);
    // The engine answers a dialect's cursor queries itself; the controller's terminal answers
    // them too (it sees them in the stream), and a second answer would arrive as typed keys.
    let keys = this.shell.answersCursorQueries ? data.replace(CURSOR_REPORT, '') : data;
    const interrupt = keys.lastIndexOf(INTERRUPT_KEY);
    if (interrupt >= 0) {
      // A full terminal (its program does not read) takes no key, the Ctrl-C neither, for as
      // long as that lasts: the interrupt it stands for is sent as the terminal would.
      if (this.shell.unwrittenBytes() > 0) void this.interruptFullTerminal();
      // From the Ctrl-C on, ahead of everything that waited (dropped): it waits at most for
      // the look at the terminal of a batch already being written.
      this.dropPending();
      keys = keys.slice(interrupt);
    } else {
      const pendingBytes = this.waitingBytes + this.shell.unwrittenBytes();
      const droppedBytes = Buffer.byteLength(keys);
      if (pendingBytes + droppedBytes > maxPendingBytes) {
        return {
          written: Promise.resolve(),
          dropped: { droppedBytes, pendingBytes, limitBytes: maxPendingBytes },
        };
      }
    }
    if (keys === '') return { written: Promise.resolve(), dropped: null };
    this.waitingBytes += Buffer.byteLength(keys);
    if (this.queued?.id === id) {
      this.queued.keys += keys;
      return { written: this.queued.written, dropped: null };
    }
    const generation = this.generation;
    const batch: { id: string; keys: string; written: Promise<void> } = {
      id,
      keys,
      written: Promise.resolve(),
    };
    // Only a batch that has to wait takes later frames: keys typed into an idle shell go at once.
    if (this.batchesInFlight > 0) this.queued = batch;
    this.batchesInFlight++;
    batch.written = this.typing
      .then(() => {
        if (this.queued === batch) this.queued = null;
        if (generation !== this.generation) return; // dropped by a Ctrl-C
        this.waitingBytes -= Buffer.byteLength(batch.keys);
        return this.writeBatch(id, batch.keys, generation);
      })
      .finally(() => {
        this.batchesInFlight--;
      });
    this.typing = batch.written.catch(() => undefined);
    return { written: batch.written, dropped: null };
  }

  /** SIGINT to the foreground job, when the terminal's Ctrl-C means one (`isig`). */
  private async interruptFullTerminal(): Promise<void> {
    const by = this.control;
    if (by === null) return;
    const mode = await readLineMode(this.shell.ttyPath);
    if (mode?.interrupts === true && this.control === by) await this.interrupt(by);
  }

  /** Forgets every key still waiting for the shell, ours and the terminal's queue (Ctrl-C). */
  private dropPending(): void {
    this.generation++;
    this.queued = null;
    this.waitingBytes = 0;
    this.shell.dropUnwritten();
  }

  /** Writes one batch, hidden or not as the terminal's mode says just before. */
  private async writeBatch(id: string, keys: string, generation: number): Promise<void> {
    const by = this.control;
    if (by?.id !== id || !this.shell.alive) return;
    const hidden = isHiddenInput(
      await readLineMode(this.shell.ttyPath),
      await this.shell.cursorLineText(),
      this.use.typedLine,
    );
    if (this.control !== by || generation !== this.generation) return;
    this.use.typed(keys, hidden);
    this.shell.write(keys);
    this.onInput.fire({ by, keys, hidden });
  }

  /** The controller's terminal size, kept until release. */
  resize(id: string, cols: number, rows: number): void {
    this.requireController(id);
    this.shell.resize({ cols, rows });
  }

  /** SIGINT to the foreground process group (the page's Interrupt button), sent by `by`. */
  async interrupt(by: Controller): Promise<boolean> {
    if (!this.shell.alive) return false;
    // The shell's own builtins (`read`) run in its group: an agent command counts as a job.
    const sent = await interruptForeground(this.shell.pid, !this.shell.commandInForeground);
    if (sent) {
      this.use.interrupted();
      this.onInterrupt.fire(by);
    }
    return sent;
  }

  /** Throws 409 HUMAN_CONTROL while a human holds the shell. */
  refuseAgent(): void {
    if (this.control) {
      throw new JumpseatError(
        JUMPSEAT_ERR_HUMAN_CONTROL,
        `a human (${this.control.name}) holds this shell; try again after they release it`,
      );
    }
  }

  /** Resolves once a release in progress has handed the shell back. */
  async handedBack(): Promise<void> {
    await this.handingBack;
  }

  /** What the human ran since the agent's last result (for its next one), or null. */
  takeSummary(): string | null {
    return this.use.take();
  }

  /**
   * The shell is back at its prompt under the human (their command, or the agent's, ended):
   * echo on first if it stayed off at a password prompt, so the terminal state a line editor
   * saves, and gives back to the commands it runs, echoes; then line editing, if not on yet.
   */
  async backAtPrompt(): Promise<void> {
    if (!this.control) return;
    // Every time, not only when it was left off: when a job ends by a signal (a Ctrl+C),
    // bash puts back the terminal modes it saved earlier, the agent's echo-off among them.
    this.echoDue = false;
    await setLineEcho(this.shell.ttyPath, true);
    await this.shell.switchEditing();
  }

  /** The shell exited: nobody controls it any more. */
  shellExited(): void {
    if (!this.control) return;
    this.control = null;
    this.onControl.fire(null);
  }

  private async handingBackDone(): Promise<void> {
    const handBack = this.handBack();
    this.handingBack = handBack;
    try {
      await handBack;
    } finally {
      if (this.handingBack === handBack) this.handingBack = null;
    }
  }

  private async handBack(): Promise<void> {
    if (!this.shell.alive) return;
    if (this.use.pendingLine) {
      this.shell.write(KILL_LINE);
      this.use.dropPendingLine();
    }
    await this.shell.switchEditing();
    await setLineEcho(this.shell.ttyPath, false);
    this.shell.resize();
    await this.shell.adoptHumanCommand();
  }

  private requireController(id: string): void {
    if (this.control?.id !== id) {
      throw new JumpseatError(JUMPSEAT_ERR_CONTROLLED, 'take the controls first');
    }
  }

  private announce(cause: ControlChangeCause = {}): void {
    this.cause = cause;
    try {
      this.onControl.fire(this.control);
    } finally {
      this.cause = {};
    }
    this.shell.changed();
  }
}
