/**
 * The keys of the human at a shell's controls on their way to its terminal: in the order they
 * came, one batch after another (each looks at the terminal's mode first, to tell a hidden
 * answer), bounded while the shell does not read, and Ctrl-C ahead of everything waiting.
 */

import type { FileHandle } from 'node:fs/promises';
import type { Viewer } from '../../../shared/src/live.ts';
import { readLineMode } from '../pty/terminal-mode.ts';
import { isHiddenInput } from './hidden-input.ts';
import type { HumanUse } from './human-use.ts';
import type { SecretWarning } from './secret-warning.ts';
import { writeTypedInterrupt } from './typed-interrupt.ts';

/** A terminal's answer to a cursor-position query (`ESC [ row ; col R`). */
const CURSOR_REPORT = /\x1b\[\d+;\d+R/g;
/** Ctrl-C: the interrupt key, never dropped and never queued behind other keys. */
const INTERRUPT_KEY = '\x03';
/** Keys that are Ctrl-C alone: no line typed after it that could start a job of its own. */
const ONLY_INTERRUPTS = /^\x03+$/;

/** What became of one frame of keys: written in turn, or dropped at once (and why). */
export interface TypedKeys {
  readonly written: Promise<void>;
  readonly dropped: {
    readonly droppedBytes: number;
    readonly pendingBytes: number;
    readonly limitBytes: number;
  } | null;
}

/** What the keys need of the shell's terminal. */
export interface KeyedShell {
  readonly alive: boolean;
  /** The shell process (a typed Ctrl-C is carried to the job it is starting). */
  readonly pid: number;
  /** The shell's terminal, opened while it is still the shell's (for its mode). */
  openTerminal(): Promise<FileHandle | null>;
  /** Resolves once no line of the engine's own (a switch of line editing) is under way. */
  editingSwitched(): Promise<void>;
  /** The dialect's shell answers cursor queries itself (see ShellDialect). */
  readonly answersCursorQueries: boolean;
  /** The text on the cursor's line, once every displayed byte is on the screen. */
  cursorLineText(): Promise<string>;
  write(keys: string): void;
  /** Written keys the terminal has not taken yet (its program does not read). */
  unwrittenBytes(): number;
  /** Forgets written keys that have not begun going to the terminal. */
  dropUnwritten(): void;
}

/** The human at the controls (human-control.ts's Controller). */
type Controller = Viewer;

/** What the keys need of human control. */
export interface KeysHost {
  /** Who holds the controls now. */
  controller(): Controller | null;
  /** SIGINT to the foreground job, sent by `by`. */
  interrupt(by: Controller): Promise<boolean>;
  /** Keys went to the terminal. */
  typed(keys: { readonly by: Controller; readonly keys: string; readonly hidden: boolean }): void;
}

export class HumanKeys {
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
  /** Batches written to the terminal so far (a typed Ctrl-C asks whether more came since). */
  private batchesWritten = 0;

  constructor(
    private readonly shell: KeyedShell,
    private readonly secrets: SecretWarning,
    private readonly use: HumanUse,
    private readonly host: KeysHost,
  ) {}

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
  input(id: string, data: string, maxPendingBytes: number): TypedKeys {
    // The engine answers a dialect's cursor queries itself; the controller's terminal answers
    // them too (it sees them in the stream), and a second answer would arrive as typed keys.
    let keys = this.shell.answersCursorQueries ? data.replace(CURSOR_REPORT, '') : data;
    const interrupt = keys.lastIndexOf(INTERRUPT_KEY);
    if (interrupt >= 0) {
      // A full terminal (its program does not read) takes no key, the Ctrl-C neither, for as
      // long as that lasts: the interrupt it stands for is sent as the terminal would.
      if (this.shell.unwrittenBytes() > 0) void this.interruptFullTerminal();
      this.secrets.cancel(); // a held hidden answer is dropped with the rest
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
    const by = this.host.controller();
    if (by === null) return;
    const mode = await readLineMode(() => this.shell.openTerminal());
    if (mode?.interrupts === true && this.host.controller() === by) await this.host.interrupt(by);
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
    // Never mixed with the line that switches line editing: read before it, the keys would
    // run hidden from the screen; a Ctrl-C would flush it from the terminal's input.
    await this.shell.editingSwitched();
    const by = this.host.controller();
    if (by?.id !== id || !this.shell.alive) return;
    const mode = await readLineMode(() => this.shell.openTerminal());
    const hidden = isHiddenInput(mode, await this.shell.cursorLineText(), this.use.typedLine);
    if (this.host.controller() !== by || generation !== this.generation) return;
    if (!(await this.secrets.clear(by, keys, hidden))) {
      // Not sent: what was typed after it goes too (a Ctrl-C's cancel dropped it already).
      if (generation === this.generation) this.dropPending();
      return;
    }
    if (this.host.controller() !== by || generation !== this.generation) return;
    this.use.typed(keys, hidden);
    const batch = ++this.batchesWritten;
    if (mode?.interrupts === true && keys.includes(INTERRUPT_KEY)) {
      // Quiet while nothing is typed after the Ctrl-C, in these keys or in later ones, and the
      // one who typed it holds the controls (handed back, the agent's command starts jobs).
      const alone = ONLY_INTERRUPTS.test(keys);
      writeTypedInterrupt(
        this.shell.pid,
        () => this.shell.write(keys),
        () => alone && this.batchesWritten === batch && this.host.controller() === by,
      );
    } else this.shell.write(keys);
    this.host.typed({ by, keys, hidden });
  }
}
