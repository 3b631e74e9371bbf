/**
 * A human at a shell's controls (ARCHITECTURE.md, "Take-over semantics"): exclusive control
 * visible to all, the agent refused meanwhile, echo and line editing for the person typing,
 * what they ran kept for the agent's next result, and the hand-back. The shell lends it the
 * few operations this needs through `ControlledShell`; the prompt and marks stay the shell's.
 */

import type { FileHandle } from 'node:fs/promises';
import type { Viewer } from '../../../shared/src/live.ts';
import { DEFAULT_INPUT_PENDING_MAX_BYTES } from '../config/connection-limits.ts';
import {
  JUMPSEAT_ERR_CONTROLLED,
  JUMPSEAT_ERR_HUMAN_CONTROL,
  JUMPSEAT_ERR_SHELL_UNAVAILABLE,
  JumpseatError,
} from '../errors.ts';
import { Emitter } from '../pty/disposable.ts';
import { setLineEcho } from '../pty/terminal-mode.ts';
import { HumanKeys, type TypedKeys } from './human-keys.ts';
import { HumanUse } from './human-use.ts';
import { SecretWarning } from './secret-warning.ts';

export type { TypedKeys } from './human-keys.ts';

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
  /** The shell's terminal, opened while it is still the shell's (for its echo setting). */
  openTerminal(): Promise<FileHandle | null>;
  readonly pid: number;
  /** An agent's command holds the terminal (running, or waiting for input). */
  readonly commandInForeground: boolean;
  /** SIGINT to what holds the terminal, never lost to a command that is just starting. */
  interrupt(): Promise<boolean>;
  /** The dialect's shell answers cursor queries itself (see ShellDialect). */
  readonly answersCursorQueries: boolean;
  /** The text on the cursor's line, once every displayed byte is on the screen. */
  cursorLineText(): Promise<string>;
  /** Line editing on or off, as `controlled` calls for, when the shell is at its prompt. */
  switchEditing(): Promise<void>;
  /** Resolves once no switch of line editing is under way. */
  editingSwitched(): Promise<void>;
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
  /** A fresh shell the human started in the shell's process (`exec bash`) gets the integration. */
  takeFreshShell(): Promise<void>;
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
  /** The question before a hidden answer goes into an agent's shell (secret-warning.ts). */
  readonly secrets: SecretWarning;
  private control: Controller | null = null;
  private readonly use = new HumanUse();
  /** The controller's keys on their way to the terminal. */
  private readonly keys: HumanKeys;
  /** Why the controls changed hands, while `onControl` fires for that change. */
  private cause: ControlChangeCause = {};
  /** A release in progress: agent calls wait for the shell to be theirs again. */
  private handingBack: Promise<void> | null = null;

  constructor(private readonly shell: ControlledShell) {
    this.secrets = new SecretWarning(() => !shell.personal);
    this.keys = new HumanKeys(shell, this.secrets, this.use, {
      controller: () => this.control,
      interrupt: (by) => this.interrupt(by),
      typed: (typed) => this.onInput.fire(typed),
    });
  }

  get controller(): Controller | null {
    return this.control;
  }

  /** A person holds the controls, or is handing them back (what runs then is theirs or ours). */
  get held(): boolean {
    return this.control !== null || this.handingBack !== null;
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
    // Left off (a secret, or a program running the terminal raw), it comes back with
    // backAtPrompt, which switches echo on at every prompt under a human.
    if (!secret) await setLineEcho(() => this.shell.openTerminal(), true);
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
   * Keystrokes from the human at the controls, in the order they came, bounded by
   * `maxPendingBytes` (see HumanKeys).
   */
  input(id: string, data: string, maxPendingBytes = DEFAULT_INPUT_PENDING_MAX_BYTES): TypedKeys {
    this.requireController(id);
    return this.keys.input(id, data, maxPendingBytes);
  }

  /** The controller's terminal size, kept until release. */
  resize(id: string, cols: number, rows: number): void {
    this.requireController(id);
    this.shell.resize({ cols, rows });
  }

  /** SIGINT to the foreground process group (the page's Interrupt button), sent by `by`. */
  async interrupt(by: Controller): Promise<boolean> {
    if (!this.shell.alive) return false;
    const sent = await this.shell.interrupt();
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
    await setLineEcho(() => this.shell.openTerminal(), true);
    await this.shell.switchEditing();
  }

  /** The shell exited: nobody controls it any more. */
  shellExited(): void {
    this.secrets.cancel();
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
    await this.shell.takeFreshShell();
    await this.shell.switchEditing();
    await setLineEcho(() => this.shell.openTerminal(), false);
    this.shell.resize();
    await this.shell.adoptHumanCommand();
  }

  private requireController(id: string): void {
    if (this.control?.id !== id) {
      throw new JumpseatError(JUMPSEAT_ERR_CONTROLLED, 'take the controls first');
    }
  }

  private announce(cause: ControlChangeCause = {}): void {
    this.secrets.cancel(); // asked of the one who typed; moot once the controls move
    this.cause = cause;
    try {
      this.onControl.fire(this.control);
    } finally {
      this.cause = {};
    }
    this.shell.changed();
  }
}
