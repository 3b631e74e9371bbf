/**
 * Bounds the work a shell's bytes make a terminal emulator do, before xterm.js (the server's
 * screen model, every page's terminal, jumpseat/playwright's mirror) parses them.
 *
 * - Repeat counts. xterm.js 6 runs `CSI n S` (scroll up), `T` (scroll down), `L` (insert
 *   lines), `M` (delete lines), `b` (repeat the last character), `Z` and `I` (tab back and
 *   forward) as a loop of n steps, n up to 2^31 − 1: `printf '\e[2147483647S'`, 15 bytes, kept
 *   the server's event loop busy for most of an hour (every agent's calls, every viewer) and
 *   froze every browser watching. Other terminals bound the same counts (kitty, iTerm2, VTE,
 *   mintty, mosh each fixed this).
 * - Strings. xterm.js keeps an OSC or DCS string it handles (a title, a hyperlink, a status
 *   request) as one JavaScript string per character until it ends, up to ten million: 9 MB of
 *   an unended title cost the server about 300 MB. Past STRING_MAX_BYTES a string is cancelled
 *   with CAN, as xterm.js cancels one past its own limit, and the rest of it dropped.
 *
 * The count bounds change nothing a screen shows: scrolling, inserting or deleting more lines than
 * the screen has rows blanks the scroll region, as many as there are rows do; tabbing more
 * stops than there are columns ends at the line's edge, as many as there are columns do. The
 * one exception is `b`, bounded to a line's width: a program repeating one character over more
 * than a whole line (curses repeats runs within a line only) gets one line of it.
 *
 * What counts as a sequence follows xterm.js's parser, and errs towards seeing one: the
 * introducer is ESC `[` or U+009B (bytes C2 9B); C0 controls and DEL inside a sequence are
 * carried out without ending it, and so are bytes that are not valid UTF-8 (xterm.js's decoder
 * drops them: `\e[30\xff0000S` scrolls 300,000 lines), so every byte of 0x80 and above is
 * taken to continue a sequence (a valid non-ASCII character ends one in xterm.js; bounding the
 * count of such garbage as well changes only how garbage is shown). ESC, CAN and SUB end a
 * sequence as they do there.
 *
 * A sequence's parameters are held back until its final byte, so a count split across chunks
 * is seen whole; at most HOLD_MAX_BYTES of them (a longer one is let through as it comes, its
 * first parameter bounded to the smallest bound whatever its final byte turns out to be). A
 * string ends where it ends in xterm.js: BEL (an OSC's), ESC, CAN, SUB or any C1 control; a
 * cancelled string's bytes are dropped to there (a C1's own C2 goes back in front of it).
 */

const ESC = 0x1b;
const CAN = 0x18;
const SUB = 0x1a;
const DEL = 0x7f;
const LEFT_BRACKET = 0x5b;
/** U+009B (CSI) in UTF-8: C2 9B. */
const UTF8_C1_LEAD = 0xc2;
const C1_CSI = 0x9b;
/** C1 OSC and DCS (after C2): strings, like ESC ] and ESC P. */
const C1_OSC = 0x9d;
const C1_DCS = 0x90;
const C1_FIRST = 0x80;
const C1_LAST = 0x9f;
const RIGHT_BRACKET = 0x5d;
const LETTER_P = 0x50;
const BEL = 0x07;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const SEMICOLON = 0x3b;
/** `<`, `=`, `>`, `?`: private markers (none of the bounded sequences has one). */
const PRIVATE_FIRST = 0x3c;
const PRIVATE_LAST = 0x3f;
const INTERMEDIATE_FIRST = 0x20;
const INTERMEDIATE_LAST = 0x2f;
const FINAL_FIRST = 0x40;
const FINAL_LAST = 0x7e;
/** xterm.js caps every parameter at this. */
const PARAM_MAX = 0x7fffffff;
/** A sequence's parameter bytes held back at most (real ones are a few dozen). */
export const HOLD_MAX_BYTES = 512;
/**
 * The most of an OSC or DCS string passed on (a title or a hyperlink is far shorter); past it
 * the string is cancelled (CAN) and the rest of it dropped up to its end.
 */
export const STRING_MAX_BYTES = 8192;

/** The final bytes whose first parameter counts lines, and those that count columns. */
const LINE_COUNTS = new Set([0x53, 0x54, 0x4c, 0x4d]); // S T L M
const COLUMN_COUNTS = new Set([0x62, 0x5a, 0x49]); // b Z I

export interface TerminalSize {
  readonly cols: number;
  readonly rows: number;
}

/**
 * `held`: inside a CSI, its parameter bytes held back; `passing`: inside a CSI too long to
 * hold, its bytes going through as they come.
 */
type State = 'ground' | 'escape' | 'held' | 'passing' | 'string' | 'dropping';

export class TerminalBounds {
  private state: State = 'ground';
  /** The last byte seen was C2 (with a 9B next, U+009B: a CSI from any state). */
  private afterC2 = false;
  /**
   * The current CSI's bytes after its introducer that came in earlier chunks (held back);
   * its bytes in the chunk being read start at `seqStart` and stay in place unless its count
   * is rewritten.
   */
  private held: number[] = [];
  private seqStart = 0;
  /** Where the first parameter's digits are in the sequence (held bytes first). */
  private firstDigits: number[] = [];
  /** The first parameter's value so far (capped as xterm.js caps it). */
  private first = 0;
  /** A `;` or `:` ended the first parameter. */
  private firstDone = false;
  /** A private marker or an intermediate: not one of the bounded sequences. */
  private other = false;
  /** In a string: an OSC (BEL ends it; a DCS takes BEL as data), and its bytes so far. */
  private osc = false;
  private stringBytes = 0;

  /** `size`: the terminal's size where these bytes will be parsed. */
  constructor(private readonly size: () => TerminalSize) {}

  /** The stream starts over (a terminal reset, a snapshot): nothing is pending. */
  reset(): void {
    this.state = 'ground';
    this.afterC2 = false;
    this.clearSequence();
  }

  /**
   * The bytes to parse for `chunk`: the chunk itself when nothing in it needs bounding (and
   * no sequence is pending), otherwise new bytes; bytes of an unfinished sequence come with a
   * later chunk.
   */
  push(chunk: Uint8Array): Uint8Array {
    if (
      this.state === 'ground' &&
      !this.afterC2 &&
      chunk.indexOf(ESC) === -1 &&
      chunk.indexOf(UTF8_C1_LEAD) === -1
    ) {
      return chunk;
    }
    // A sequence held from an earlier chunk goes on being held: no run of this one is kept yet.
    const out = new Output(chunk, this.state !== 'held');
    this.seqStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      if (this.state === 'ground') {
        // Text: on to the next byte that can begin a sequence (after a C2, the next byte).
        if (!this.afterC2) i = nextIntroducer(chunk, i);
        if (i === chunk.length) break;
      }
      this.take(chunk, i, out);
    }
    if (this.state === 'held') {
      // Unfinished: its bytes wait for the chunk that ends it.
      out.holdFrom(this.seqStart);
      for (let i = this.seqStart; i < chunk.length; i++) this.held.push(chunk[i] as number);
    }
    return out.finish();
  }

  private take(chunk: Uint8Array, at: number, out: Output): void {
    const byte = chunk[at] as number;
    // A C1 control (C2 80 to C2 9F): CSI, OSC and DCS begin sequences; any ends a string.
    const c1 = this.afterC2 && byte >= C1_FIRST && byte <= C1_LAST ? byte : -1;
    this.afterC2 = byte === UTF8_C1_LEAD;
    if (this.state === 'dropping' && !this.dropped(byte, c1, at, out)) return;
    if (
      c1 === C1_CSI ||
      c1 === C1_OSC ||
      c1 === C1_DCS ||
      byte === ESC ||
      byte === CAN ||
      byte === SUB
    ) {
      // Ends any sequence in progress (as it was: it never reached its final byte).
      if (this.state === 'held') this.release(out);
      this.clearSequence();
      if (c1 === C1_CSI) this.state = this.startSequence(at);
      else if (c1 !== -1) this.state = this.startString(c1 === C1_OSC);
      else this.state = byte === ESC ? 'escape' : 'ground';
      return;
    }
    switch (this.state) {
      case 'ground':
        return;
      case 'escape':
        if (byte === LEFT_BRACKET) this.state = this.startSequence(at);
        else if (byte === RIGHT_BRACKET || byte === LETTER_P) {
          this.state = this.startString(byte === RIGHT_BRACKET);
        } else if (!continuesSequence(byte)) this.state = 'ground';
        return;
      case 'string':
        this.inString(byte, c1, at, out);
        return;
      case 'held':
        this.inSequence(chunk, at, out);
        return;
      case 'passing':
        this.pass(byte, at, out);
        return;
    }
  }

  private startString(osc: boolean): State {
    this.osc = osc;
    this.stringBytes = 0;
    return 'string';
  }

  private inString(byte: number, c1: number, at: number, out: Output): void {
    // Its end (ESC, CAN and SUB are taken before): BEL ends an OSC, any C1 control a string.
    if (c1 !== -1 || (this.osc && byte === BEL)) {
      this.state = 'ground';
      return;
    }
    this.stringBytes++;
    if (this.stringBytes <= STRING_MAX_BYTES) return;
    // Cancelled here; this byte and the rest of the string go nowhere.
    out.holdFrom(at);
    out.insert([CAN]);
    out.keepFrom(at + 1);
    this.state = 'dropping';
  }

  /**
   * A byte of a cancelled string: false when dropped. ESC, or a C1 control, ends the string
   * and is taken as usual (true); the C1's C2 was dropped with the string, so it goes back.
   */
  private dropped(byte: number, c1: number, at: number, out: Output): boolean {
    if (c1 !== -1) {
      out.holdFrom(at);
      out.insert([UTF8_C1_LEAD]);
      out.keepFrom(at);
      this.state = 'ground';
      return true;
    }
    if (byte === ESC) {
      this.state = 'ground';
      return true;
    }
    out.drop(at);
    if (byte === CAN || byte === SUB || (this.osc && byte === BEL)) this.state = 'ground';
    return false;
  }

  /** The introducer ends at `at`; the sequence's own bytes begin after it. */
  private startSequence(at: number): State {
    this.seqStart = at + 1;
    return 'held';
  }

  private inSequence(chunk: Uint8Array, at: number, out: Output): void {
    const byte = chunk[at] as number;
    const final = byte >= FINAL_FIRST && byte <= FINAL_LAST;
    if (!final) this.note(byte, this.held.length + at - this.seqStart);
    const length = this.held.length + at + 1 - this.seqStart;
    if (!final && length < HOLD_MAX_BYTES) return;
    // Ended, or too long to hold: bounded now (to the smallest bound when its final byte is
    // not known yet), then let through as it comes.
    const { cols, rows } = this.size();
    const limit = final ? this.limitFor(byte) : this.other ? null : Math.min(cols, rows);
    if (limit !== null && this.first > limit) {
      const bytes = this.held.concat(Array.from(chunk.subarray(this.seqStart, at + 1)));
      out.holdFrom(this.seqStart);
      out.insert(this.rewriteFirst(bytes, limit));
      out.keepFrom(at + 1);
    } else {
      this.release(out);
    }
    if (final) {
      this.clearSequence();
      this.state = 'ground';
    } else {
      this.held = [];
      this.state = 'passing';
    }
  }

  /** The sequence goes out as it is: what was held first, then this chunk's bytes in place. */
  private release(out: Output): void {
    out.insert(this.held);
    // The chunk's run was closed (or never opened) where the sequence's bytes begin.
    out.keepFrom(this.seqStart);
    this.held = [];
  }

  private pass(byte: number, at: number, out: Output): void {
    if (byte >= FINAL_FIRST && byte <= FINAL_LAST) {
      this.clearSequence();
      this.state = 'ground';
      return;
    }
    // The first parameter went out bounded: more of its digits would undo that.
    if (!this.firstDone && !this.other && byte >= DIGIT_0 && byte <= DIGIT_9) out.drop(at);
    else this.note(byte, -1);
  }

  /** What a byte inside a CSI says of the sequence (`index`: where it is in it, or −1). */
  private note(byte: number, index: number): void {
    if (byte >= DIGIT_0 && byte <= DIGIT_9) {
      if (this.firstDone || this.other) return;
      this.first = Math.min(PARAM_MAX, this.first * 10 + (byte - DIGIT_0));
      if (index >= 0) this.firstDigits.push(index);
    } else if (byte === SEMICOLON || byte === COLON) {
      this.firstDone = true;
    } else if (
      (byte >= PRIVATE_FIRST && byte <= PRIVATE_LAST) ||
      (byte >= INTERMEDIATE_FIRST && byte <= INTERMEDIATE_LAST)
    ) {
      this.other = true;
    }
    // Anything else (C0, DEL, bytes of 0x80 and above) continues the sequence unchanged.
  }

  private limitFor(final: number): number | null {
    if (this.other) return null;
    if (LINE_COUNTS.has(final)) return this.size().rows;
    if (COLUMN_COUNTS.has(final)) return this.size().cols;
    return null;
  }

  /** `bytes` with the first parameter's digits made `value`'s, where its first digit was. */
  private rewriteFirst(bytes: readonly number[], value: number): number[] {
    const [firstAt] = this.firstDigits;
    if (firstAt === undefined) return [...bytes];
    const digits = Array.from(String(value), (ch) => ch.charCodeAt(0));
    const dropped = new Set(this.firstDigits);
    const rewritten: number[] = [];
    bytes.forEach((b, i) => {
      if (i === firstAt) rewritten.push(...digits);
      else if (!dropped.has(i)) rewritten.push(b);
    });
    this.firstDigits = [];
    this.first = value;
    return rewritten;
  }

  private clearSequence(): void {
    this.held = [];
    this.firstDigits = [];
    this.first = 0;
    this.firstDone = false;
    this.other = false;
  }
}

/** Where the next ESC or C2 is from `from` on; the chunk's length when there is none. */
function nextIntroducer(chunk: Uint8Array, from: number): number {
  let i = from;
  while (i < chunk.length) {
    const byte = chunk[i];
    if (byte === ESC || byte === UTF8_C1_LEAD) break;
    i++;
  }
  return i;
}

/** Inside ESC (before `[`): bytes that leave xterm.js's escape state as it was. */
function continuesSequence(byte: number): boolean {
  return byte < INTERMEDIATE_FIRST || byte === DEL || byte >= 0x80;
}

/**
 * The bytes `push` returns: runs of the input kept as they are, with held or rewritten bytes
 * put between them, and single bytes dropped. Positions are the input's.
 */
class Output {
  private readonly parts: Uint8Array[] = [];
  /** Start of the input run being kept; null while input is held back. */
  private runStart: number | null;

  constructor(
    private readonly input: Uint8Array,
    keeping: boolean,
  ) {
    this.runStart = keeping ? 0 : null;
  }

  /** Input from `at` on is kept (a run already being kept goes on). */
  keepFrom(at: number): void {
    this.runStart ??= at;
  }

  /** Input from `at` on is held back: the kept run ends there. */
  holdFrom(at: number): void {
    this.closeRun(at);
  }

  /** Bytes that were held go out here (while input is held back, so after what went before). */
  insert(bytes: readonly number[]): void {
    if (bytes.length > 0) this.parts.push(Uint8Array.from(bytes));
  }

  /** Input byte `at` goes nowhere; the run goes on after it. */
  drop(at: number): void {
    this.closeRun(at);
    this.runStart = at + 1;
  }

  /** The output: what was kept or inserted, and the input's last run unless held back. */
  finish(): Uint8Array {
    this.closeRun(this.input.length);
    if (this.parts.length === 1) return this.parts[0] as Uint8Array;
    const total = this.parts.reduce((sum, part) => sum + part.length, 0);
    const joined = new Uint8Array(total);
    let offset = 0;
    for (const part of this.parts) {
      joined.set(part, offset);
      offset += part.length;
    }
    return joined;
  }

  private closeRun(end: number): void {
    if (this.runStart === null) return;
    if (end > this.runStart) this.parts.push(this.input.subarray(this.runStart, end));
    this.runStart = null;
  }
}
