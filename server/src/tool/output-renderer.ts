/**
 * Turns the raw bytes a command wrote to its terminal into the text a model reads, as a
 * terminal would show it: decoded, control sequences removed, carriage-return redraws
 * resolved per line. Keeps only the head in memory and streams the whole rendering to a
 * spill file once it outgrows the clip, so no output is ever lost from the start.
 */

/** Where the whole rendering goes once it is longer than the clip. */
export interface SpillTarget {
  /** Opens a new file; may throw (the result is then given without a path). */
  open(): SpillWriter;
}

export interface SpillWriter {
  /** Absolute path of the file. */
  readonly path: string;
  /** Queues text; must not block the event loop for long. */
  write(text: string): void;
  /** Resolves when everything written is in the file; rejects if it could not be saved. */
  finish(): Promise<void>;
  /** Closes and removes the file: the output turned out to fit after all. */
  discard(): Promise<void>;
}

export interface RenderedOutput {
  /** The output, one trailing newline removed, cut to `maxOutputChars` UTF-16 units. */
  text: string;
  /** The output (after the newline removal) was longer than `maxOutputChars`. */
  clipped: boolean;
  /** Length of the whole output after the newline removal, in UTF-16 units. */
  totalChars: number;
  /** File holding the whole output; set only when `clipped` and the file was saved. */
  spillPath: string | null;
  /** The engine knows the start of the output is missing. */
  lostPrefix: boolean;
}

export interface OutputRendererOptions {
  maxOutputChars: number;
  spill: SpillTarget | null;
  lostPrefix?: boolean;
}

/** Characters (UTF-16 units) after which an unterminated line is committed to the output,
 *  so a newline-free stream (`yes | tr -d '\n'`) cannot grow the line buffer without bound. */
export const LONG_LINE_COMMIT_CHARS = 256 * 1024;
/** Head kept beyond the clip, in UTF-16 units: one for the trailing newline that is removed,
 *  one to see whether the cut would split a surrogate pair. */
const HEAD_SLACK_CHARS = 2;
/** Largest CSI numeric parameter honoured; real terminals clamp to their width anyway. */
const MAX_CSI_PARAM = 4096;
/** Blank columns a cursor move may open past the line's end (bounds padding memory). */
const MAX_BLANK_COLUMNS = 4096;
/** CSI parameter characters kept; longer ones are not meaningful to us. */
const MAX_CSI_PARAM_CHARS = 64;

/** Parser states; a plain object rather than an enum so the file is erasable TypeScript. */
const State = {
  Ground: 0,
  Escape: 1,
  EscapeIntermediate: 2,
  Csi: 3,
  Osc: 4,
  /** DCS, SOS, PM, APC: only ST ends them. */
  ControlString: 5,
  /** ESC seen inside OSC or a control string: ST if `\` follows. */
  StringEscape: 6,
} as const;
type State = (typeof State)[keyof typeof State];

/** In Ground, what is not plain text: C0 except TAB/LF, a CR not followed by LF, DEL, C1.
 *  Everything between matches is printed in bulk. */
const SPECIAL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/g;
/** In OSC and control strings: BEL, CAN, SUB, ESC, ST. */
const STRING_END = /[\x07\x18\x1a\x1b\x9c]/g;
const SURROGATE = /[\ud800-\udfff]/;
const ALT_SCREEN_MODES = new Set(['1049', '1047', '47']);
const DECODE_STREAM = { stream: true } as const;

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Cuts `text` to at most `maxChars` UTF-16 units, one earlier if the cut would split a pair. */
export function cutAtCodePoint(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const end = maxChars > 0 && isHigh(text.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return text.slice(0, end);
}

function codePoints(text: string): number {
  let n = text.length;
  if (!SURROGATE.test(text)) return n;
  for (let i = 1; i < text.length; i++) {
    if (isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1))) n--;
  }
  return n;
}

/** The first numeric CSI parameter, 0 when absent, clamped to MAX_CSI_PARAM. */
function firstParam(params: string): number {
  return Math.min(Number.parseInt(params, 10) || 0, MAX_CSI_PARAM);
}

/** Index `n` columns (code points) right of `index`; past the end each column is a blank. */
function advance(line: string, index: number, n: number): number {
  let i = index;
  let left = n;
  while (left > 0 && i < line.length) {
    i += isHigh(line.charCodeAt(i)) && isLow(line.charCodeAt(i + 1)) ? 2 : 1;
    left--;
  }
  return i + left;
}

function retreat(line: string, index: number, n: number): number {
  let i = index;
  let left = n;
  const blanks = Math.min(Math.max(i - line.length, 0), left);
  i -= blanks;
  left -= blanks;
  while (left > 0 && i > 0) {
    i -= isLow(line.charCodeAt(i - 1)) && i > 1 && isHigh(line.charCodeAt(i - 2)) ? 2 : 1;
    left--;
  }
  return i;
}

export class OutputRenderer {
  private readonly maxOutputChars: number;
  private readonly headLimit: number;
  private readonly spill: SpillTarget | null;
  private readonly decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  private lostPrefix: boolean;
  private state: State = State.Ground;
  private csiParams = '';
  private csiIntermediate = false;
  private alt = false;
  /** The current, uncommitted line and the cursor in it: a UTF-16 index on a code point
   *  boundary; beyond `line.length` it stands for blank columns. */
  private line = '';
  private col = 0;
  private head = '';
  private total = 0;
  private lastCode = -1;
  private writer: SpillWriter | null = null;
  private spillFailed = false;
  private result: Promise<RenderedOutput> | null = null;

  constructor(options: OutputRendererOptions) {
    if (!Number.isInteger(options.maxOutputChars) || options.maxOutputChars < 0) {
      throw new RangeError('maxOutputChars must be a non-negative integer');
    }
    this.maxOutputChars = options.maxOutputChars;
    this.headLimit = options.maxOutputChars + HEAD_SLACK_CHARS;
    this.spill = options.spill;
    this.lostPrefix = options.lostPrefix ?? false;
  }

  /** True while a full-screen program has the alternate screen; its text is not output. */
  get altScreen(): boolean {
    return this.alt;
  }

  markLostPrefix(): void {
    this.lostPrefix = true;
  }

  /** Feeds raw PTY bytes; chunks may split UTF-8 and escape sequences anywhere. */
  push(chunk: Uint8Array): void {
    this.assertOpen();
    const text = this.decoder.decode(chunk, DECODE_STREAM);
    if (text.length > 0) this.feed(text);
  }

  /** Ends the stream; later calls return the same result. */
  finish(): Promise<RenderedOutput> {
    this.result ??= this.complete();
    return this.result;
  }

  private assertOpen(): void {
    if (this.result !== null) throw new Error('OutputRenderer: data pushed after finish()');
  }

  private async complete(): Promise<RenderedOutput> {
    const rest = this.decoder.decode();
    if (rest.length > 0) this.feed(rest);
    if (this.line.length > 0) this.emit(this.line);
    this.line = '';
    const totalChars = this.total - (this.lastCode === 0x0a ? 1 : 0);
    const clipped = totalChars > this.maxOutputChars;
    const text = clipped
      ? cutAtCodePoint(this.head, this.maxOutputChars)
      : this.head.slice(0, totalChars);
    const writer = this.writer;
    let spillPath: string | null = null;
    if (writer !== null && clipped) {
      // A file that could not be saved is not offered; the clip notice still stands.
      spillPath = await writer.finish().then(
        () => writer.path,
        () => null,
      );
    } else if (writer !== null) {
      await writer.discard().catch(() => undefined);
    }
    return { text, clipped, totalChars, spillPath, lostPrefix: this.lostPrefix };
  }

  private feed(s: string): void {
    let i = 0;
    while (i < s.length) {
      if (this.state === State.Ground) {
        SPECIAL.lastIndex = i;
        const match = SPECIAL.exec(s);
        const end = match === null ? s.length : match.index;
        if (end > i) this.printRun(s, i, end);
        if (match === null) return;
        i = this.groundControl(s.charCodeAt(end), end);
      } else if (this.state === State.Osc || this.state === State.ControlString) {
        STRING_END.lastIndex = i;
        const match = STRING_END.exec(s);
        if (match === null) return;
        i = match.index + 1;
        const c = s.charCodeAt(match.index);
        if (c === 0x1b) this.state = State.StringEscape;
        else if (c !== 0x07 || this.state === State.Osc) this.state = State.Ground;
      } else {
        if (this.state === State.Csi) i = this.csiParameters(s, i);
        if (i < s.length) i = this.sequenceChar(s.charCodeAt(i), i);
      }
    }
  }

  /** Handles one SPECIAL character in Ground; returns the next index. */
  private groundControl(c: number, i: number): number {
    if (c === 0x1b) this.state = State.Escape;
    else if (c === 0x9b) this.startCsi();
    else this.execute(c);
    return i + 1;
  }

  /** C0 controls act even inside escape sequences, as in a real terminal. */
  private execute(c: number): void {
    if (this.alt) return;
    if (c === 0x0d) this.col = 0;
    else if (c === 0x0a) this.endLine();
    else if (c === 0x08) this.col = retreat(this.line, this.col, 1);
    else if (c === 0x09) this.print('\t');
  }

  /** One character of ESC, ESC-intermediate, CSI or string-escape; returns the next index. */
  private sequenceChar(c: number, i: number): number {
    if (c === 0x18 || c === 0x1a) {
      this.state = State.Ground;
      return i + 1;
    }
    if (c === 0x1b) {
      this.state = State.Escape;
      return i + 1;
    }
    if (c < 0x20 || c === 0x7f) {
      this.execute(c);
      return i + 1;
    }
    if (c > 0x7f) {
      this.state = State.Ground; // not part of any sequence: abandon it and print c
      return i;
    }
    switch (this.state) {
      case State.Escape:
        if (c === 0x5b) this.startCsi();
        else if (c === 0x5d) this.state = State.Osc;
        else if (c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) {
          this.state = State.ControlString;
        } else if (c < 0x30) this.state = State.EscapeIntermediate;
        else {
          if (c === 0x63) this.alt = false; // ESC c, full reset, also leaves the alternate screen
          this.state = State.Ground;
        }
        return i + 1;
      case State.EscapeIntermediate:
        if (c >= 0x30) this.state = State.Ground;
        return i + 1;
      case State.StringEscape:
        if (c === 0x5c) {
          this.state = State.Ground;
          return i + 1;
        }
        this.state = State.Escape; // the string was cut short by a new escape sequence
        return i;
      default:
        if (c >= 0x40) {
          this.state = State.Ground;
          this.dispatchCsi(c);
        } else if (c < 0x30) this.csiIntermediate = true;
        else if (this.csiParams.length < MAX_CSI_PARAM_CHARS) {
          this.csiParams += String.fromCharCode(c);
        }
        return i + 1;
    }
  }

  /** Takes the run of CSI parameter characters at s[i] in one slice; returns its end. */
  private csiParameters(s: string, i: number): number {
    let end = i;
    while (end < s.length) {
      const c = s.charCodeAt(end);
      if (c < 0x30 || c > 0x3f) break;
      end++;
    }
    if (end > i && this.csiParams.length < MAX_CSI_PARAM_CHARS) {
      this.csiParams += s.slice(i, Math.min(end, i + MAX_CSI_PARAM_CHARS));
    }
    return end;
  }

  private startCsi(): void {
    this.state = State.Csi;
    this.csiParams = '';
    this.csiIntermediate = false;
  }

  private dispatchCsi(final: number): void {
    if (this.csiIntermediate) return;
    const params = this.csiParams;
    const marker = params.charCodeAt(0); // NaN when there are no parameters
    if (final === 0x68 || final === 0x6c) {
      // h / l: only the alternate-screen private modes matter here.
      if (
        marker === 0x3f &&
        params
          .slice(1)
          .split(';')
          .some((m) => ALT_SCREEN_MODES.has(m))
      ) {
        this.alt = final === 0x68;
      }
      return;
    }
    if (this.alt || marker >= 0x3c) return; // private sequences (< = > ?) move no cursor
    switch (final) {
      case 0x4b: // K: erase in line
        this.eraseInLine(firstParam(params));
        break;
      case 0x47: // G: cursor to column
      case 0x60: // `: the same, as HPA
        this.moveTo(advance(this.line, 0, Math.max(firstParam(params), 1) - 1));
        break;
      case 0x43: // C: cursor forward
      case 0x61: // a: the same, as HPR
        this.moveTo(advance(this.line, this.col, Math.max(firstParam(params), 1)));
        break;
      case 0x44: // D: cursor back
        this.col = retreat(this.line, this.col, Math.max(firstParam(params), 1));
        break;
      case 0x58: // X: erase characters
        this.eraseChars(Math.max(firstParam(params), 1));
        break;
    }
  }

  private moveTo(index: number): void {
    this.col = Math.min(index, this.line.length + MAX_BLANK_COLUMNS);
  }

  /** Columns (code points plus blanks) left of the cursor. */
  private column(): number {
    const inLine = Math.min(this.col, this.line.length);
    return codePoints(this.line.slice(0, inLine)) + (this.col - inLine);
  }

  private eraseInLine(mode: number): void {
    if (mode === 0) {
      if (this.col < this.line.length) this.line = this.line.slice(0, this.col);
      return;
    }
    const column = this.column();
    const end = advance(this.line, this.col, 1);
    // Erased cells at the end of a line are invisible; only erased cells before kept text
    // become spaces. The cursor keeps its column.
    if (mode === 1 && end < this.line.length) {
      this.line = ' '.repeat(column + 1) + this.line.slice(end);
      this.col = column;
    } else if (mode === 1 || mode === 2) {
      this.line = '';
      this.col = column;
    }
  }

  private eraseChars(n: number): void {
    if (this.col >= this.line.length) return;
    const end = advance(this.line, this.col, n);
    const before = this.line.slice(0, this.col);
    this.line = end >= this.line.length ? before : before + ' '.repeat(n) + this.line.slice(end);
  }

  /** Prints s[start, end), which holds only text, TAB, LF and CR LF: the fast path. */
  private printRun(s: string, start: number, end: number): void {
    if (this.alt) return;
    // Sliced first so every search below stops at the run's end: searching the whole chunk
    // from each run would be quadratic for chunks of many short runs (progress redraws).
    const run = s.slice(start, end);
    const first = run.indexOf('\n');
    if (first === -1) {
      this.print(run);
      return;
    }
    this.print(run.slice(0, first > 0 && run.charCodeAt(first - 1) === 0x0d ? first - 1 : first));
    this.endLine();
    const last = run.lastIndexOf('\n');
    if (last > first) this.emitLines(run.slice(first + 1, last + 1));
    if (last + 1 < run.length) this.print(run.slice(last + 1));
  }

  /** Emits whole lines whose only CRs are those of CR LF. */
  private emitLines(lines: string): void {
    if (this.writer === null && this.head.length >= this.headLimit) {
      // Nobody reads these characters any more (no spill file): count them, build nothing.
      let crs = 0;
      for (let p = lines.indexOf('\r'); p !== -1; p = lines.indexOf('\r', p + 1)) crs++;
      this.total += lines.length - crs;
      this.lastCode = 0x0a;
      return;
    }
    this.emit(lines.includes('\r') ? lines.replaceAll('\r', '') : lines);
  }

  /** Writes text without controls (TAB aside) at the cursor, overwriting what is there. */
  private print(t: string): void {
    if (t.length === 0) return;
    const line = this.line;
    if (this.col === line.length) {
      this.line = line + t;
    } else if (this.col > line.length) {
      this.line = line + ' '.repeat(this.col - line.length) + t;
    } else {
      const plain =
        !SURROGATE.test(t) && !SURROGATE.test(line.slice(this.col, this.col + t.length));
      const end = plain ? this.col + t.length : advance(line, this.col, codePoints(t));
      this.line = line.slice(0, this.col) + t + line.slice(end);
    }
    this.col += t.length;
    if (this.line.length > LONG_LINE_COMMIT_CHARS) {
      // Commit what is left of the cursor; a later CR can then only redraw the rest.
      const cut = Math.min(this.col, this.line.length);
      this.emit(this.line.slice(0, cut));
      this.line = this.line.slice(cut);
      this.col -= cut;
    }
  }

  private endLine(): void {
    this.emit(`${this.line}\n`);
    this.line = '';
    this.col = 0;
  }

  /** Appends committed text to the output: the head in memory, the whole to the spill. */
  private emit(text: string): void {
    if (text.length === 0) return;
    if (this.writer === null && this.total + text.length > this.maxOutputChars) this.openSpill();
    this.writer?.write(text);
    const room = this.headLimit - this.head.length;
    if (room > 0) this.head += text.length <= room ? text : text.slice(0, room);
    this.total += text.length;
    this.lastCode = text.charCodeAt(text.length - 1);
  }

  private openSpill(): void {
    if (this.spill === null || this.spillFailed) return;
    try {
      this.writer = this.spill.open();
    } catch {
      this.spillFailed = true;
      return;
    }
    this.writer.write(this.head); // the head still holds everything before the clip
  }
}
