/**
 * The line under a terminal's cursor, as the output renderer models it: printed text
 * overwrites at the cursor, erases and cursor moves act within the line, and a finished
 * (or very long) line is handed on as committed text that nothing can redraw any more.
 */

/** Characters (UTF-16 units) after which an unterminated line is committed to the output,
 *  so a newline-free stream (`yes | tr -d '\n'`) cannot grow the line buffer without bound. */
export const LONG_LINE_COMMIT_CHARS = 256 * 1024;
/** Blank columns a cursor move may open past the line's end (bounds padding memory). */
export const MAX_BLANK_COLUMNS = 4096;

const SURROGATE = /[\ud800-\udfff]/;

export const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
export const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

function codePoints(text: string): number {
  let n = text.length;
  if (!SURROGATE.test(text)) return n;
  for (let i = 1; i < text.length; i++) {
    if (isLowSurrogate(text.charCodeAt(i)) && isHighSurrogate(text.charCodeAt(i - 1))) n--;
  }
  return n;
}

/** Index `n` columns (code points) right of `index`; past the end each column is a blank. */
function advance(line: string, index: number, n: number): number {
  let i = index;
  let left = n;
  while (left > 0 && i < line.length) {
    i += isHighSurrogate(line.charCodeAt(i)) && isLowSurrogate(line.charCodeAt(i + 1)) ? 2 : 1;
    left--;
  }
  return i + left;
}

/** Index `n` columns left of `index`, blanks past the end first, never below 0. */
function retreat(line: string, index: number, n: number): number {
  let i = index;
  let left = n;
  const blanks = Math.min(Math.max(i - line.length, 0), left);
  i -= blanks;
  left -= blanks;
  while (left > 0 && i > 0) {
    const pair = i > 1 && isLowSurrogate(line.charCodeAt(i - 1));
    i -= pair && isHighSurrogate(line.charCodeAt(i - 2)) ? 2 : 1;
    left--;
  }
  return i;
}

/** Receives committed text: a whole line with its LF, or what a line holds when it ends. */
export type CommitText = (text: string) => void;

/** Columns count code points; a TAB is one column, as the model reads it (no tab stops). */
export class TerminalLine {
  private readonly commit: CommitText;
  private readonly commitChars: number;
  /** The uncommitted text and the cursor in it: a UTF-16 index on a code point boundary;
   *  beyond `text.length` it stands for blank columns. */
  private text = '';
  private cursor = 0;

  /** `commitChars` defaults to LONG_LINE_COMMIT_CHARS; tests make it small. */
  constructor(commit: CommitText, commitChars = LONG_LINE_COMMIT_CHARS) {
    this.commit = commit;
    this.commitChars = commitChars;
  }

  /** UTF-16 units held and not yet committed. */
  get length(): number {
    return this.text.length;
  }

  /** Writes text without controls (TAB aside) at the cursor, overwriting what is there. */
  print(t: string): void {
    if (t.length === 0) return;
    const line = this.text;
    if (this.cursor === line.length) {
      this.text = line + t;
    } else if (this.cursor > line.length) {
      this.text = line + ' '.repeat(this.cursor - line.length) + t;
    } else {
      const plain =
        !SURROGATE.test(t) && !SURROGATE.test(line.slice(this.cursor, this.cursor + t.length));
      const end = plain ? this.cursor + t.length : advance(line, this.cursor, codePoints(t));
      this.text = line.slice(0, this.cursor) + t + line.slice(end);
    }
    this.cursor += t.length;
    if (this.text.length > this.commitChars) {
      // Commit what is left of the cursor; a later CR can then only redraw the rest.
      const cut = Math.min(this.cursor, this.text.length);
      this.commit(this.text.slice(0, cut));
      this.text = this.text.slice(cut);
      this.cursor -= cut;
    }
  }

  /** LF: commits the line with its line end and starts an empty one. */
  newline(): void {
    this.commit(`${this.text}\n`);
    this.text = '';
    this.cursor = 0;
  }

  /** Commits what the line holds without a line end: the output ended mid-line. */
  flush(): void {
    if (this.text.length > 0) this.commit(this.text);
    this.text = '';
    this.cursor = 0;
  }

  carriageReturn(): void {
    this.cursor = 0;
  }

  cursorBack(n: number): void {
    this.cursor = retreat(this.text, this.cursor, n);
  }

  cursorForward(n: number): void {
    this.moveTo(advance(this.text, this.cursor, n));
  }

  /** `column` counts from 0 (CSI G counts from 1). */
  cursorToColumn(column: number): void {
    this.moveTo(advance(this.text, 0, column));
  }

  /** EL: 0 erases from the cursor to the end, 1 from the start to the cursor, 2 all. */
  eraseInLine(mode: number): void {
    if (mode === 0) {
      if (this.cursor < this.text.length) this.text = this.text.slice(0, this.cursor);
      return;
    }
    const column = this.column();
    const end = advance(this.text, this.cursor, 1);
    // Erased cells at the end of a line are invisible; only erased cells before kept text
    // become spaces. The cursor keeps its column.
    if (mode === 1 && end < this.text.length) {
      this.text = ' '.repeat(column + 1) + this.text.slice(end);
      this.cursor = column;
    } else if (mode === 1 || mode === 2) {
      this.text = '';
      this.cursor = column;
    }
  }

  /** ECH: blanks `n` columns from the cursor without moving it. */
  eraseChars(n: number): void {
    if (this.cursor >= this.text.length) return;
    const end = advance(this.text, this.cursor, n);
    const before = this.text.slice(0, this.cursor);
    this.text = end >= this.text.length ? before : before + ' '.repeat(n) + this.text.slice(end);
  }

  private moveTo(index: number): void {
    this.cursor = Math.min(index, this.text.length + MAX_BLANK_COLUMNS);
  }

  /** Columns (code points plus blanks) left of the cursor. */
  private column(): number {
    const inLine = Math.min(this.cursor, this.text.length);
    return codePoints(this.text.slice(0, inLine)) + (this.cursor - inLine);
  }
}
