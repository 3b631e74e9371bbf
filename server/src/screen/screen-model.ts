/**
 * One headless xterm.js per shell: the same screen a human sees. It is the source of
 * snapshots for late joiners and of the result text while a full-screen program (one on
 * the alternate screen) waits. Writes are handed to xterm's own write buffer, which parses
 * in time slices off the call's settlement path.
 */
import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';

const { Terminal } = headless;
const { SerializeAddon } = serialize;

/** Lines of history kept for snapshots: enough context for a late joiner, bounded memory. */
export const SCREEN_SCROLLBACK_LINES = 2000;

export class ScreenModel {
  private readonly terminal: InstanceType<typeof Terminal>;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private written = 0;
  private parsed = 0;
  private disposed = false;

  constructor(cols: number, rows: number) {
    this.terminal = new Terminal({
      cols,
      rows,
      scrollback: SCREEN_SCROLLBACK_LINES,
      allowProposedApi: true,
    });
    this.serializer = new SerializeAddon();
    this.terminal.loadAddon(this.serializer);
  }

  get cols(): number {
    return this.terminal.cols;
  }

  get rows(): number {
    return this.terminal.rows;
  }

  /** Bytes handed to the model so far (the display stream offset it will cover). */
  get offset(): number {
    return this.written;
  }

  write(chunk: Uint8Array): void {
    if (this.disposed || chunk.length === 0) return;
    this.written += chunk.length;
    const end = this.written;
    this.terminal.write(chunk, () => {
      this.parsed = end;
    });
  }

  /** Resolves once every byte written so far has been parsed. */
  settled(): Promise<void> {
    if (this.disposed || this.parsed === this.written) return Promise.resolve();
    return new Promise((resolve) => this.terminal.write('', () => resolve()));
  }

  resize(cols: number, rows: number): void {
    if (!this.disposed) this.terminal.resize(cols, rows);
  }

  get altScreen(): boolean {
    return this.terminal.buffer.active.type === 'alternate';
  }

  /** The text of the visible screen, right-trimmed, without trailing blank lines. */
  screenText(): string {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.terminal.rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      lines.push(line ? line.translateToString(true) : '');
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  /** Screen and scrollback as escape sequences that rebuild them on another terminal. */
  serialize(): string {
    return this.serializer.serialize({ scrollback: SCREEN_SCROLLBACK_LINES });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.terminal.dispose();
  }
}
