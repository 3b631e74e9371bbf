/**
 * What a shell shows: the display stream (the bytes viewers, recordings and the screen model
 * see, with their offsets) and the headless screen model those bytes draw. One reason to
 * change: how a shell's output is presented. Once the shell has ended, `freeze` keeps the last
 * screen as text and a snapshot and lets the model go (megabytes per shell with scrollback):
 * an ended shell's page and API keep working from what was kept.
 */
import { Emitter } from '../pty/disposable.ts';
import { ScreenModel, type ScreenSnapshot } from '../screen/screen-model.ts';

export interface DisplayChunk {
  /** Display-stream offset of the chunk's first byte. */
  readonly offset: number;
  readonly data: Buffer;
}

/** Lines of history an ended shell's snapshot keeps (the recording has everything). */
export const ENDED_SCROLLBACK_LINES = 500;
/**
 * The screen is kept once the ended shell's display has been quiet this long: the last bytes
 * a PTY gives can come after its exit is known (a busy machine), and they belong on it.
 */
export const FREEZE_QUIET_MS = 2000;

/** What is kept of the screen once the model is let go. */
interface FrozenScreen {
  readonly snapshot: ScreenSnapshot;
  readonly text: string;
  readonly cursorLine: string;
  readonly cursor: { row: number; col: number };
}

export class ShellDisplay {
  readonly onDisplay = new Emitter<DisplayChunk>();
  /** null once frozen: the model is let go, not only disposed (that keeps its buffers). */
  private model: ScreenModel | null;
  private displayed = 0;
  private frozen: FrozenScreen | null = null;
  private freezing: Promise<void> | null = null;
  private freezeTimer: NodeJS.Timeout | undefined;

  constructor(cols: number, rows: number) {
    this.model = new ScreenModel(cols, rows);
  }

  /** Display bytes produced so far: the offset the next chunk starts at. */
  get offset(): number {
    return this.displayed;
  }

  show(data: Buffer): void {
    if (data.length === 0) return;
    const offset = this.displayed;
    this.displayed += data.length;
    this.model?.write(data);
    this.freezeTimer?.refresh();
    this.onDisplay.fire({ offset, data });
  }

  /** The visible screen as text, once every displayed byte has been parsed. */
  async screenText(): Promise<string> {
    await this.freezing;
    if (this.frozen) return this.frozen.text;
    const screen = this.screen();
    await screen.settled();
    return screen.screenText();
  }

  async cursorLineText(): Promise<string> {
    await this.freezing;
    if (this.frozen) return this.frozen.cursorLine;
    const screen = this.screen();
    await screen.settled();
    return screen.cursorLineText();
  }

  /** Where the cursor is on the screen viewers see, once every byte has been parsed. */
  async cursor(): Promise<{ row: number; col: number }> {
    await this.freezing;
    if (this.frozen) return this.frozen.cursor;
    const screen = this.screen();
    await screen.settled();
    return screen.cursor();
  }

  /** Screen and scrollback serialized, with the exact display offset they cover. */
  async snapshot(): Promise<ScreenSnapshot> {
    await this.freezing;
    return this.frozen?.snapshot ?? this.screen().snapshot();
  }

  resize(cols: number, rows: number): void {
    this.model?.resize(cols, rows);
  }

  /** The shell ended: the screen is frozen once its display has been quiet FREEZE_QUIET_MS. */
  freezeWhenQuiet(): void {
    if (this.freezeTimer !== undefined || this.freezing !== null) return;
    this.freezeTimer = setTimeout(() => void this.freeze(), FREEZE_QUIET_MS);
    this.freezeTimer.unref();
  }

  /**
   * The shell ended: keeps the last screen (text, cursor, a snapshot with the last
   * ENDED_SCROLLBACK_LINES of history) and frees the screen model. Bytes shown later (none
   * are expected) still reach listeners, not the kept screen.
   */
  freeze(): Promise<void> {
    this.freezing ??= (async () => {
      const screen = this.screen();
      const snapshot = await screen.finalSnapshot(ENDED_SCROLLBACK_LINES);
      this.frozen = screen.isDisposed
        ? // The shell was disposed meanwhile: nothing is left to show.
          { snapshot, text: '', cursorLine: '', cursor: { row: 1, col: 1 } }
        : {
            snapshot,
            text: screen.screenText(),
            cursorLine: screen.cursorLineText(),
            cursor: screen.cursor(),
          };
      screen.dispose();
      this.model = null;
    })();
    return this.freezing;
  }

  dispose(): void {
    clearTimeout(this.freezeTimer);
    this.onDisplay.clear();
    this.model?.dispose();
  }

  /** The model; only called before `frozen` is set (the freeze keeps it until then). */
  private screen(): ScreenModel {
    if (this.model === null) throw new Error('the screen model was let go');
    return this.model;
  }
}
