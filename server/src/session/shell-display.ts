/**
 * What a shell shows: the display stream (the bytes viewers, recordings and the screen model
 * see, with their offsets) and the headless screen model those bytes draw. One reason to
 * change: how a shell's output is presented.
 */
import { Emitter } from '../pty/disposable.ts';
import { ScreenModel, type ScreenSnapshot } from '../screen/screen-model.ts';

export interface DisplayChunk {
  /** Display-stream offset of the chunk's first byte. */
  readonly offset: number;
  readonly data: Buffer;
}

export class ShellDisplay {
  readonly onDisplay = new Emitter<DisplayChunk>();
  private readonly screen: ScreenModel;
  private displayed = 0;

  constructor(cols: number, rows: number) {
    this.screen = new ScreenModel(cols, rows);
  }

  /** Display bytes produced so far: the offset the next chunk starts at. */
  get offset(): number {
    return this.displayed;
  }

  show(data: Buffer): void {
    if (data.length === 0) return;
    const offset = this.displayed;
    this.displayed += data.length;
    this.screen.write(data);
    this.onDisplay.fire({ offset, data });
  }

  /** The visible screen as text, once every displayed byte has been parsed. */
  async screenText(): Promise<string> {
    await this.screen.settled();
    return this.screen.screenText();
  }

  async cursorLineText(): Promise<string> {
    await this.screen.settled();
    return this.screen.cursorLineText();
  }

  /** Where the cursor is on the screen viewers see, once every byte has been parsed. */
  async cursor(): Promise<{ row: number; col: number }> {
    await this.screen.settled();
    return this.screen.cursor();
  }

  /** Screen and scrollback serialized, with the exact display offset they cover. */
  snapshot(): Promise<ScreenSnapshot> {
    return this.screen.snapshot();
  }

  resize(cols: number, rows: number): void {
    this.screen.resize(cols, rows);
  }

  dispose(): void {
    this.onDisplay.clear();
    this.screen.dispose();
  }
}
