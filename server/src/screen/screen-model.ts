/**
 * One headless xterm.js per shell: the same screen a human sees. It is the source of
 * snapshots for late joiners and of the result text while a full-screen program (one on
 * the alternate screen) waits. It is the costliest consumer of PTY bytes (xterm parses
 * ~25 MB/s here), so while output streams hot its writes are held back and parsed once the
 * stream pauses: a burst like `seq 1 1000000` then never competes with reading the PTY,
 * and the call settles as soon as its end mark arrives. Anyone who reads the screen
 * (snapshot, screen text) first forces what is held back through the parser.
 */

import serialize from '@xterm/addon-serialize';
import headless from '@xterm/headless';
import { TerminalBounds } from '../../../shared/src/terminal-bounds.ts';
import { guardTerminal } from '../../../shared/src/xterm-guard.ts';

const { Terminal } = headless;
const { SerializeAddon } = serialize;

/** Lines of history kept for snapshots: enough context for a late joiner, bounded memory. */
export const SCREEN_SCROLLBACK_LINES = 2000;
/** Output is held back until the stream has been quiet this long… */
const SCREEN_QUIET_MS = 8;
/** …or this much is held (memory bound per shell during a burst). */
const SCREEN_HOLD_MAX_BYTES = 8 * 1024 * 1024;
/** Below this, parsing everything costs less than looking for what can be skipped. */
const SKIP_MIN_BYTES = 64 * 1024;
/** The most of a chunk with escape sequences that xterm.js parses without yielding. */
const PARSE_SLICE_BYTES = 512;
const ESC = 0x1b;
const CR = 0x0d;
const LF = 0x0a;
const CRLF = Buffer.from('\r\n');

export interface ScreenSnapshot {
  /** Escape sequences that rebuild screen and scrollback on a terminal of this size. */
  readonly data: string;
  /** Display-stream offset covered: every byte before it, none after. */
  readonly offset: number;
  readonly cols: number;
  readonly rows: number;
}

export class ScreenModel {
  private readonly terminal: InstanceType<typeof Terminal>;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private written = 0;
  private parsed = 0;
  private disposed = false;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private quietTimer: NodeJS.Timeout | undefined;
  /**
   * The size bytes written now will be parsed at: a resize applies in stream order, after
   * the bytes written before it, so the terminal's own size can still be the old one.
   */
  private streamSize: { cols: number; rows: number };
  /** A shell's repeat counts and strings bounded before xterm.js runs them (terminal-bounds.ts). */
  private readonly bounds = new TerminalBounds(() => this.streamSize);
  private defectSeen = false;

  constructor(cols: number, rows: number) {
    this.terminal = new Terminal({
      cols,
      rows,
      scrollback: SCREEN_SCROLLBACK_LINES,
      allowProposedApi: true,
      // A command's bytes are not the server's to log: xterm.js reports parse errors of
      // invalid sequences on the console, so any agent could fill the server's log.
      logLevel: 'off',
    });
    this.serializer = new SerializeAddon();
    this.terminal.loadAddon(this.serializer);
    this.streamSize = { cols, rows };
    guardTerminal(this.terminal, (error) => this.defect(error));
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

  write(chunk: Buffer): void {
    if (this.disposed || chunk.length === 0) return;
    // Offsets count the display stream's bytes; the parser gets them with counts bounded.
    this.written += chunk.length;
    const safe = this.bounds.push(chunk);
    if (safe.length === 0) return;
    const parsed = Buffer.isBuffer(safe)
      ? safe
      : Buffer.from(safe.buffer, safe.byteOffset, safe.length);
    this.held.push(parsed);
    this.heldBytes += parsed.length;
    if (this.heldBytes >= SCREEN_HOLD_MAX_BYTES) {
      this.release();
      return;
    }
    // One timer per burst, pushed back on every chunk (no new timer per chunk).
    if (this.quietTimer) this.quietTimer.refresh();
    else this.quietTimer = setTimeout(() => this.release(), SCREEN_QUIET_MS);
  }

  /** Resolves once every byte written so far has been parsed. */
  settled(): Promise<void> {
    this.release();
    if (this.disposed || this.parsed === this.written) return Promise.resolve();
    return new Promise((resolve) => this.terminal.write('', () => resolve()));
  }

  /**
   * Screen and scrollback serialized together with the exact display offset they cover.
   * xterm calls a write's callback right after parsing that write and before parsing any
   * later one, so serializing inside the callback sees every byte up to `offset` and none
   * after, however fast output keeps arriving.
   */
  snapshot(): Promise<ScreenSnapshot> {
    this.release();
    const offset = this.written;
    const take = (): ScreenSnapshot => ({
      data: this.disposed ? '' : this.serialize(),
      offset,
      cols: this.cols,
      rows: this.rows,
    });
    if (this.disposed) return Promise.resolve(take());
    return new Promise((resolve) => this.terminal.write('', () => resolve(take())));
  }

  /** Hands what is held back to xterm's parser. */
  private release(): void {
    clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    if (this.disposed || this.held.length === 0) return;
    // The chunks go as they are (a burst is not copied into one buffer first).
    const chunks = skipScrolledOut(this.held, this.terminal.rows);
    this.held = [];
    this.heldBytes = 0;
    const end = this.written;
    const pieces = chunks.flatMap(slices);
    const last = pieces.length - 1;
    for (let i = 0; i < last; i++) this.terminal.write(pieces[i] as Buffer);
    this.terminal.write(pieces[last] as Buffer, () => {
      this.parsed = end;
    });
  }

  /** Resizes in stream order: bytes written before the resize are parsed at the old size. */
  resize(cols: number, rows: number): void {
    if (this.disposed) return;
    this.streamSize = { cols, rows };
    this.release();
    this.terminal.write('', () => {
      // Guarded (xterm-guard.ts): a defect met here resets the screen instead of throwing.
      if (!this.disposed) this.terminal.resize(cols, rows);
    });
  }

  /** The model was let go: it shows nothing and parses nothing any more. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  get altScreen(): boolean {
    return this.terminal.buffer.active.type === 'alternate';
  }

  /** Where the cursor is, 1-based, as a terminal reports it (call after settled()). */
  cursor(): { row: number; col: number } {
    const buffer = this.terminal.buffer.active;
    return { row: buffer.cursorY + 1, col: Math.min(buffer.cursorX, this.terminal.cols - 1) + 1 };
  }

  /** The text of the visible screen, right-trimmed, without trailing blank lines. */
  screenText(): string {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    // The bottom of the buffer (baseY), not the viewport: nobody scrolls this terminal, and
    // once the scrollback is full xterm.js can leave the viewport behind as lines are trimmed.
    for (let y = 0; y < this.terminal.rows; y++) {
      const line = buffer.getLine(buffer.baseY + y);
      // Full-screen programs paint blanks to the line's end; they are not text for a reader.
      lines.push(line ? line.translateToString(true).trimEnd() : '');
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  /** The text of the line the cursor is on, up to the cursor (a prompt being answered). */
  cursorLineText(): string {
    const buffer = this.terminal.buffer.active;
    const line = buffer.getLine(buffer.baseY + buffer.cursorY);
    return line ? line.translateToString(true, 0, buffer.cursorX) : '';
  }

  /**
   * Screen and scrollback as escape sequences that rebuild them on another terminal; called
   * from xterm.js's write callbacks, where a throw would end the server: a buffer xterm.js
   * cannot serialize gives an empty screen, which starts over (the defect is reported).
   */
  serialize(scrollback = SCREEN_SCROLLBACK_LINES): string {
    try {
      return this.serializer.serialize({ scrollback });
    } catch (error) {
      this.defect(error);
      this.terminal.reset();
      return '';
    }
  }

  /**
   * A snapshot with at most `scrollback` lines of history, once every byte is parsed: what an
   * ended shell keeps of its screen when the model itself is let go.
   */
  finalSnapshot(scrollback: number): Promise<ScreenSnapshot> {
    this.release();
    const offset = this.written;
    const take = (): ScreenSnapshot => ({
      data: this.disposed ? '' : this.serialize(scrollback),
      offset,
      cols: this.cols,
      rows: this.rows,
    });
    if (this.disposed) return Promise.resolve(take());
    return new Promise((resolve) => this.terminal.write('', () => resolve(take())));
  }

  /** Said once per model: a shell that keeps tripping a defect must not flood the log. */
  private defect(error: unknown): void {
    if (this.defectSeen) return;
    this.defectSeen = true;
    process.emitWarning(
      `a shell's screen model was reset after an xterm.js defect: ${error instanceof Error ? error.message : String(error)}`,
    );
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.quietTimer);
    this.held = [];
    this.terminal.dispose();
  }
}

/**
 * A chunk as xterm.js should take it. xterm.js parses what it is given in slices of about
 * 12 ms, checking the time between writes only: a 4 KB chunk of scroll sequences costs it
 * about 0.1 s, during which no call or viewer of any shell is served. Chunks with escape
 * sequences go in pieces of PARSE_SLICE_BYTES; plain text, cheap to parse, as it is.
 */
function slices(chunk: Buffer): Buffer[] {
  if (chunk.length <= PARSE_SLICE_BYTES || chunk.indexOf(ESC) === -1) return [chunk];
  const pieces: Buffer[] = [];
  for (let at = 0; at < chunk.length; at += PARSE_SLICE_BYTES) {
    pieces.push(chunk.subarray(at, at + PARSE_SLICE_BYTES));
  }
  return pieces;
}

/**
 * A burst of plain text longer than the whole buffer leaves on screen only its last lines:
 * everything before them scrolls out of the scrollback. When the held chunks can change no
 * terminal state but the cursor and the text (no ESC, no shift in/out, no C1 controls), the
 * bytes before the last `scrollback + rows` complete lines are skipped: starting a new line
 * (CR LF) and parsing the rest gives the same screen, at a fraction of the cost. Returns the
 * chunks to parse, in order: `chunks` itself when nothing can be skipped.
 */
export function skipScrolledOut(chunks: readonly Buffer[], rows: number): readonly Buffer[] {
  let bytes = 0;
  for (const chunk of chunks) bytes += chunk.length;
  if (bytes < SKIP_MIN_BYTES || !isPlainText(chunks)) return chunks;
  // The line feed that begins the last `scrollback + rows` lines: chunk `at`, byte `cut`.
  let at = chunks.length - 1;
  let cut = (chunks[at] as Buffer).length;
  for (let lines = 0; lines <= SCREEN_SCROLLBACK_LINES + rows; lines++) {
    for (;;) {
      const found = cut > 0 ? (chunks[at] as Buffer).lastIndexOf(LF, cut - 1) : -1;
      if (found !== -1) {
        cut = found;
        break;
      }
      if (at === 0) return chunks;
      at -= 1;
      cut = (chunks[at] as Buffer).length;
    }
  }
  // Only cut after CR LF: a bare LF keeps the cursor's column, which we would not reproduce.
  const chunk = chunks[at] as Buffer;
  const previous = chunks[at - 1];
  const before = cut > 0 ? chunk[cut - 1] : previous?.[previous.length - 1];
  if (before !== CR) return chunks;
  const rest = chunk.subarray(cut + 1);
  return [CRLF, ...(rest.length > 0 ? [rest] : []), ...chunks.slice(at + 1)];
}

function isPlainText(chunks: readonly Buffer[]): boolean {
  for (let i = 0; i < chunks.length; i++) {
    const data = chunks[i] as Buffer;
    if (data.indexOf(0x1b) !== -1 || data.indexOf(0x0e) !== -1 || data.indexOf(0x0f) !== -1) {
      return false;
    }
    // C1 controls arrive UTF-8 encoded as C2 80–C2 9F, which a chunk's end may split.
    for (let at = data.indexOf(0xc2); at !== -1; at = data.indexOf(0xc2, at + 1)) {
      const next = at + 1 < data.length ? data[at + 1] : chunks[i + 1]?.[0];
      if (next !== undefined && next >= 0x80 && next <= 0x9f) return false;
    }
  }
  return true;
}
