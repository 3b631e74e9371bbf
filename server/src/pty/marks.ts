/**
 * Finds the shell integration's private marks in the PTY byte stream and splits them out.
 * A mark is `ESC ] 7717 ; <shell nonce> ; <event> ; <data> BEL`: an OSC that no terminal
 * displays. Scanning bytes ourselves (instead of in the screen model) settles a call in the
 * same tick its end mark arrives, costs one indexOf per chunk, and keeps nonces away from
 * viewers, recordings and the screen model, which never see a mark at all.
 */

export const MARK_IDENT = '7717';
const PREFIX = Buffer.from(`\x1b]${MARK_IDENT};`, 'latin1');
const BEL = 0x07;
/** A mark is short (nonce, event, call nonce, status); anything longer is not ours. */
const MAX_MARK_BYTES = 256;

export interface Mark {
  readonly event: string;
  readonly data: string;
}

export type ScannedPiece = { readonly data: Buffer } | { readonly mark: Mark };

/** Builds the exact mark text for a given event, as the shell integration prints it. */
export function markText(nonce: string, event: string, data = ''): string {
  return `\x1b]${MARK_IDENT};${nonce};${event};${data}\x07`;
}

export class MarkScanner {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly nonce: string) {}

  /** Splits a chunk into data and marks, in stream order. Holds back a partial mark. */
  push(chunk: Buffer): ScannedPiece[] {
    const buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    const pieces: ScannedPiece[] = [];
    let pos = 0;
    while (pos < buf.length) {
      const start = buf.indexOf(PREFIX, pos);
      if (start === -1) {
        const keep = partialPrefixLength(buf, pos);
        emitData(pieces, buf, pos, buf.length - keep);
        this.pending = Buffer.from(buf.subarray(buf.length - keep));
        return pieces;
      }
      emitData(pieces, buf, pos, start);
      const bodyStart = start + PREFIX.length;
      const end = buf.indexOf(BEL, bodyStart);
      const limit = start + MAX_MARK_BYTES;
      if (end === -1 || end > limit) {
        if (end === -1 && buf.length < limit) {
          this.pending = Buffer.from(buf.subarray(start));
          return pieces;
        }
        // Too long to be ours: pass the introducer through as ordinary bytes.
        emitData(pieces, buf, start, bodyStart);
        pos = bodyStart;
        continue;
      }
      const mark = this.parse(buf.toString('latin1', bodyStart, end));
      if (mark) pieces.push({ mark });
      else emitData(pieces, buf, start, end + 1);
      pos = end + 1;
    }
    return pieces;
  }

  /** Whatever is held back, released as data (used when the stream ends). */
  flush(): Buffer {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return rest;
  }

  private parse(body: string): Mark | null {
    const first = body.indexOf(';');
    if (first === -1 || body.slice(0, first) !== this.nonce) return null;
    const second = body.indexOf(';', first + 1);
    if (second === -1) return null;
    return { event: body.slice(first + 1, second), data: body.slice(second + 1) };
  }
}

function emitData(pieces: ScannedPiece[], buf: Buffer, from: number, to: number): void {
  if (to > from) pieces.push({ data: buf.subarray(from, to) });
}

/** How many bytes at the end of buf[from..] could begin a mark introducer. */
function partialPrefixLength(buf: Buffer, from: number): number {
  const max = Math.min(PREFIX.length - 1, buf.length - from);
  for (let len = max; len > 0; len--) {
    if (buf.compare(PREFIX, 0, len, buf.length - len, buf.length) === 0) return len;
  }
  return 0;
}
