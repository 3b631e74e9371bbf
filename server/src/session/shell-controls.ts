/**
 * What human control may do with one shell (`ControlledShell`, see human-control.ts): the
 * terminal lent to the person at the controls, with line editing switched for them, their
 * size, their interrupt, and a program they leave in the foreground adopted as the agent's
 * waiting program. The prompt and the marks stay the shell's (see CallLine).
 */
import type { FileHandle } from 'node:fs/promises';
import type { ShellDialect } from '../pty/dialect.ts';
import { readStat } from '../pty/proc-probe.ts';
import type { CallLine } from './call-line.ts';
import type { CallRun } from './call-run.ts';
import type { ControlledShell, HumanControl } from './human-control.ts';
import { type PersonExec, personLineTaken } from './person-exec.ts';
import type { ShellDisplay } from './shell-display.ts';
import type { ShellProcess } from './shell-process.ts';
import type { ShellStatus } from './shell-status.ts';

/** A switch of line editing whose prompt never came is given up after this long. */
const EDITING_SWITCH_LIMIT_MS = 2000;

export interface TerminalSize {
  readonly cols: number;
  readonly rows: number;
}

/** The shell's pieces the controls use. */
export interface ControlsParts {
  readonly status: ShellStatus;
  readonly pty: ShellProcess;
  readonly output: ShellDisplay;
  readonly calls: CallLine;
  readonly dialect: ShellDialect;
  /** The dialect's lines that switch line editing on and off for a human, if it has them. */
  readonly editing: { readonly on: string; readonly off: string } | undefined;
  /** The agent's size: the shell's without a controller. */
  readonly agentSize: TerminalSize;
}

/** What only the shell itself knows or does. */
export interface ControlsHost {
  readonly human: HumanControl;
  /** The agent's call in flight, if any. */
  readonly run: CallRun | null;
  /** A person's own shell, no agent's (yet). */
  readonly personal: boolean;
  resized(size: TerminalSize): void;
  /** Anything `info()` reports changed. */
  changed(): void;
  /** What a person may have exec'd in the shell's process, taken care of (person-exec.ts). */
  afterPerson(): Promise<PersonExec>;
}

export class ShellControls implements ControlledShell {
  /** The dialect's line editing is switched on for a human (see `switchEditing`). */
  private humanEditing = false;
  /** The switches of line editing, one after another (see `switchEditing`). */
  private switching: Promise<void> = Promise.resolve();
  private sizeValue: TerminalSize;
  /** The prompts shown when the person last entered a line (see person-exec.ts). */
  private enteredAtPrompt: number | null = null;

  constructor(
    private readonly parts: ControlsParts,
    private readonly host: ControlsHost,
  ) {
    this.sizeValue = parts.agentSize;
  }

  get size(): TerminalSize {
    return this.sizeValue;
  }

  get alive(): boolean {
    return this.parts.status.alive;
  }

  get personal(): boolean {
    return this.host.personal;
  }

  openTerminal(): Promise<FileHandle | null> {
    return this.parts.pty.openTerminal(this.parts.status.ttyPath);
  }

  get pid(): number {
    return this.parts.pty.pid;
  }

  get commandInForeground(): boolean {
    return this.parts.calls.foreground !== null;
  }

  get answersCursorQueries(): boolean {
    return this.parts.dialect.answersCursorQueries;
  }

  interrupt(): Promise<boolean> {
    return this.parts.calls.interrupt();
  }

  cursorLineText(): Promise<string> {
    return this.parts.output.cursorLineText();
  }

  write(keys: string): void {
    if (keys.includes('\r') || keys.includes('\n')) {
      this.enteredAtPrompt = this.parts.calls.promptsShown;
    }
    this.parts.pty.write(keys);
  }

  unwrittenBytes(): number {
    return this.parts.pty.unwrittenBytes();
  }

  dropUnwritten(): void {
    this.parts.pty.dropUnwritten();
  }

  pauseCall(): void {
    this.host.run?.pause();
  }

  resumeCall(): void {
    this.host.run?.resume();
  }

  changed(): void {
    this.host.changed();
  }

  /** The controller's size, or the agent's when called without one. */
  resize(size?: TerminalSize): void {
    const { cols, rows } = size ?? this.parts.agentSize;
    if (!this.alive || (cols === this.sizeValue.cols && rows === this.sizeValue.rows)) return;
    this.sizeValue = { cols, rows };
    this.parts.pty.resize(cols, rows);
    this.parts.output.resize(cols, rows);
    this.host.resized({ cols, rows });
  }

  /**
   * Switches the dialect's line editing to what the controls call for (on for a human, off
   * for the agent) when the shell is at its prompt; resolves once the new prompt is up. One
   * switch at a time: a take's and the one of the prompt it waited for are one line, not two.
   */
  switchEditing(): Promise<void> {
    const switched = this.switching.then(() => this.switchEditingNow());
    this.switching = switched.catch(() => undefined);
    return switched;
  }

  /**
   * Resolves once no switch of line editing is under way: keys typed meanwhile would reach
   * the shell mixed with its line, read before it, or (a Ctrl-C) flush it.
   */
  editingSwitched(): Promise<void> {
    return this.switching;
  }

  private async switchEditingNow(): Promise<void> {
    const lines = this.parts.editing;
    if (!lines || !this.alive) return;
    // A person's own shell keeps its line editing, with or without someone at the controls.
    const wanted = () => this.host.human.controller !== null || this.host.personal;
    // Nothing to switch (every agent call asks): no wait. A shell whose prompt never reaches
    // the terminal (stderr sent elsewhere) would make each call wait the whole limit.
    if (wanted() === this.humanEditing) return;
    // Taken right after a call ended, the shell's prompt is still on its way: the switch
    // waits for it, so the person's first key finds their line editing on.
    await this.parts.calls.promptUp(EDITING_SWITCH_LIMIT_MS);
    if (wanted() === this.humanEditing || !this.parts.calls.atPrompt) return;
    const on = wanted();
    this.humanEditing = on;
    const line = on ? lines.on : lines.off;
    // Not switched as far as anyone knows: the next prompt under the controls tries again.
    if (!(await this.parts.calls.runOwnLine(line, EDITING_SWITCH_LIMIT_MS))) {
      this.humanEditing = !on;
    }
  }

  /**
   * A person ran `exec`: a fresh shell has the integration now, which switches line editing
   * off itself; another program holds the terminal, the agent's to type to.
   */
  async takeFreshShell(): Promise<void> {
    const entered = this.enteredAtPrompt;
    this.enteredAtPrompt = null;
    const { calls } = this.parts;
    // A call's line or a program it runs took the person's line: nothing of theirs is due.
    if (entered !== null && !this.host.run && !calls.foreground) {
      await personLineTaken(this.parts, entered);
    }
    const found = await this.host.afterPerson();
    if (found === 'reinstalled') this.humanEditing = false;
    if (found !== 'other' || this.host.run || this.parts.calls.foreground || !this.alive) return;
    this.parts.calls.adopt('a program a human started');
    this.parts.status.set('waiting_input');
  }

  /**
   * After release, a program the human started may still hold the terminal (an editor, a
   * REPL, a long job). The agent's next call is then typed to it as input, as for a program
   * an agent call left waiting, and the shell's next prompt ends it.
   */
  async adoptHumanCommand(): Promise<void> {
    const { calls, status } = this.parts;
    if (this.host.run || calls.foreground || !this.alive) return;
    // Any foreground group other than the shell's own is a job it runs.
    const stat = await readStat(this.pid);
    if (!stat || stat.tpgid === stat.pgrp || this.host.run || calls.foreground || !this.alive) {
      return;
    }
    calls.adopt('a program a human started');
    status.set('waiting_input');
  }
}
