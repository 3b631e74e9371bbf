/**
 * Spots a program asking the terminal where its cursor is (DSR 6, `ESC [ 6 n`) in the PTY
 * byte stream. .NET asks before every prompt and every line it reads, and blocks until the
 * terminal answers; with no terminal on the other side, the engine must answer for it.
 */

const QUERY = Buffer.from('\x1b[6n', 'latin1');

export class CursorQueryScanner {
  /** The end of the previous chunk that could begin a query split across chunks. */
  private tail: Buffer = Buffer.alloc(0);

  /** How many queries end in this chunk. */
  push(chunk: Buffer): number {
    const buf = this.tail.length ? Buffer.concat([this.tail, chunk]) : chunk;
    let count = 0;
    for (let at = buf.indexOf(QUERY); at !== -1; at = buf.indexOf(QUERY, at + QUERY.length)) {
      count++;
    }
    // Three bytes can begin a query but never hold a whole one: nothing is counted twice.
    this.tail = Buffer.from(buf.subarray(Math.max(0, buf.length - (QUERY.length - 1))));
    return count;
  }
}

/** The terminal's answer (CPR): 1-based row and column. */
export function cursorReport(row: number, col: number): string {
  return `\x1b[${row};${col}R`;
}
