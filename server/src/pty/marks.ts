/**
 * Finds the shell integration's private marks in the PTY byte stream and splits them out.
 * A mark is `ESC ] 7717 ; <shell nonce> ; <event> ; <data> BEL`: an OSC that no terminal
 * displays. Scanning bytes ourselves (instead of in the screen model) settles a call in the
 * same tick its end mark arrives, costs one indexOf per chunk, and keeps nonces away from
 * viewers, recordings and the screen model, which never see a mark at all.
 *
 * The scanner is a strict parser, not a search: a body is ours only when it has exactly the
 * mark's grammar (upper-case hex nonce, one upper-case event letter, data of digits, upper
 * case letters, `;`, `-`, `$` and `?`: every byte survives output processing such as `stty olcuc`).
 * A command's own OSC 7717 is handled like this:
 * - well formed but with another nonce: dropped (never shown, never acted on);
 * - cut short by another introducer (`printf '\e]7717;'` before a real mark): the broken
 *   one is passed on as data and scanning resumes at the next introducer, so the real mark
 *   after it still counts and never reaches a viewer;
 * - unterminated for longer than any mark could be: passed on as data.
 * A control string the output left open (a command's `printf '\e]0;title'`, a mark whose tail
 * a Ctrl-C flushed from the terminal) is ended with ST where a mark is taken out, as the
 * mark's ESC would have ended it (open-string.ts).
 */

import { randomFillSync } from 'node:crypto';
import { OpenStringWatch, STRING_TERMINATOR } from './open-string.ts';

export const MARK_IDENT = '7717';
const PREFIX = Buffer.from(`\x1b]${MARK_IDENT};`, 'latin1');
const BEL = 0x07;
const ESC = 0x1b;
/** Nothing held back (shared: a held piece is always a new buffer, never written to). */
const NOTHING = Buffer.alloc(0);
/** A mark is short (nonce, event, call nonce, status); anything longer is not ours. */
const MAX_MARK_BYTES = 256;
/** The grammar of a mark's body (after the introducer, before BEL). */
const MARK_BODY = /^([0-9A-F]{16,64});([A-Z]);([0-9A-Z;$?-]*)$/;
/** A byte a mark's body may hold after its nonce. */
const MARK_BODY_BYTE = /^[0-9A-Z;$?-]$/;

export interface Mark {
  readonly event: string;
  readonly data: string;
}

export type ScannedPiece = { readonly data: Buffer } | { readonly mark: Mark };

/** Builds the exact mark text for a given event, as the shell integration prints it. */
export function markText(nonce: string, event: string, data = ''): string {
  return `\x1b]${MARK_IDENT};${nonce};${event};${data}\x07`;
}

/** A new nonce in the form marks carry (upper-case hex: `stty olcuc` cannot change it). */
export function markNonce(bytes: Buffer): string {
  return bytes.toString('hex').toUpperCase();
}

/** Random bytes in one call's nonce. */
const CALL_NONCE_BYTES = 12;
/** Call nonces drawn from the system's generator at once: one draw serves this many calls. */
const CALL_NONCES_PER_DRAW = 256;
const callNoncePool = Buffer.alloc(CALL_NONCE_BYTES * CALL_NONCES_PER_DRAW);
let callNonceNext = callNoncePool.length;

/**
 * A new call nonce (as `markNonce`), from a pool refilled by one draw of the system's
 * generator per CALL_NONCES_PER_DRAW calls rather than one per call (a call's hot path).
 */
export function callNonce(): string {
  if (callNonceNext === callNoncePool.length) {
    randomFillSync(callNoncePool);
    callNonceNext = 0;
  }
  const start = callNonceNext;
  callNonceNext += CALL_NONCE_BYTES;
  return markNonce(callNoncePool.subarray(start, callNonceNext));
}

export class MarkScanner {
  private pending: Buffer = NOTHING;
  /** Whether the data passed on so far leaves a control string open (see open-string.ts). */
  private readonly strings = new OpenStringWatch();
  /** Pieces of the current push already seen by `strings`. */
  private watched = 0;

  constructor(private readonly nonce: string) {}

  /** Splits a chunk into data and marks, in stream order. Holds back a partial mark. */
  push(chunk: Buffer): ScannedPiece[] {
    const buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = NOTHING;
    const pieces: ScannedPiece[] = [];
    this.watched = 0;
    let pos = 0;
    while (pos < buf.length) {
      const start = buf.indexOf(PREFIX, pos);
      if (start === -1) {
        const keep = partialPrefixLength(buf, pos);
        emitData(pieces, buf, pos, buf.length - keep);
        this.pending = keep > 0 ? Buffer.from(buf.subarray(buf.length - keep)) : NOTHING;
        this.watchStrings(pieces);
        return pieces;
      }
      emitData(pieces, buf, pos, start);
      const bodyStart = start + PREFIX.length;
      const end = bodyEnd(buf, bodyStart, start + MAX_MARK_BYTES);
      if (end === -1) {
        // Still arriving: hold it back, unless it is already too long to be a mark.
        if (buf.length < start + MAX_MARK_BYTES) {
          this.pending = Buffer.from(buf.subarray(start));
          this.watchStrings(pieces);
          return pieces;
        }
        // One of ours cut short (its tail flushed): dropped, its nonce never passed on.
        const ours = this.remnantEnd(buf, bodyStart, start + MAX_MARK_BYTES);
        if (ours === -1) emitData(pieces, buf, start, bodyStart);
        pos = ours === -1 ? bodyStart : ours;
        continue;
      }
      if (buf[end] !== BEL) {
        // An ESC inside: this one is broken; whatever follows (maybe a real mark) is scanned
        // anew. One of ours cut short (a Ctrl-C flushed its tail) is dropped: its nonce is
        // never passed on.
        const ours = this.remnantEnd(buf, bodyStart, end);
        if (ours === -1) emitData(pieces, buf, start, end);
        else emitData(pieces, buf, ours, end);
        pos = end;
        continue;
      }
      // Taken out (ours, or a well-formed one with another nonce, dropped): a string the
      // output left open would have ended at its ESC; it ends there still (open-string.ts).
      this.watchStrings(pieces);
      if (this.strings.open) {
        pieces.push({ data: STRING_TERMINATOR });
        this.strings.see(STRING_TERMINATOR);
      }
      this.watched = pieces.length;
      const mark = this.parse(buf.toString('latin1', bodyStart, end));
      if (mark) {
        pieces.push({ mark });
        this.watched = pieces.length;
      }
      pos = end + 1;
    }
    this.watchStrings(pieces);
    return pieces;
  }

  /** The data pieces pushed since the last look, through the open-string watch. */
  private watchStrings(pieces: readonly ScannedPiece[]): void {
    for (let i = this.watched; i < pieces.length; i++) {
      const piece = pieces[i] as ScannedPiece;
      if ('data' in piece) this.strings.see(piece.data);
    }
    this.watched = pieces.length;
  }

  /** Whatever is held back, released as data (used when the stream ends). */
  flush(): Buffer {
    const rest = this.pending;
    this.pending = NOTHING;
    return rest;
  }

  /**
   * Where a mark of ours cut short ends: the body at `from` (up to `limit`) is this scanner's
   * nonce, or the start of it, and the mark's characters after the nonce run to the returned
   * index. -1 when the body is not ours.
   */
  private remnantEnd(buf: Buffer, from: number, limit: number): number {
    const nonceEnd = Math.min(from + this.nonce.length, limit);
    if (buf.toString('latin1', from, nonceEnd) !== this.nonce.slice(0, nonceEnd - from)) return -1;
    let at = nonceEnd;
    while (at < limit && MARK_BODY_BYTE.test(String.fromCharCode(buf[at] as number))) at++;
    return at;
  }

  /** Ours: the mark. Well formed with another nonce, or not a mark's body: null (dropped). */
  private parse(body: string): Mark | null {
    const match = MARK_BODY.exec(body);
    if (!match || match[1] !== this.nonce) return null;
    return { event: match[2] as string, data: match[3] as string };
  }
}

/** The index of the BEL ending a body, or of an ESC breaking it; -1 when neither comes by `limit`. */
function bodyEnd(buf: Buffer, from: number, limit: number): number {
  const stop = Math.min(buf.length, limit);
  for (let i = from; i < stop; i++) {
    if (buf[i] === BEL || buf[i] === ESC) return i;
  }
  return -1;
}

function emitData(pieces: ScannedPiece[], buf: Buffer, from: number, to: number): void {
  if (to > from) pieces.push({ data: buf.subarray(from, to) });
}

/** How many bytes at the end of buf[from..] could begin a mark introducer. */
function partialPrefixLength(buf: Buffer, from: number): number {
  const max = Math.min(PREFIX.length - 1, buf.length - from);
  // A partial introducer begins with ESC: without one among the last bytes there is none.
  if (max <= 0 || buf.indexOf(ESC, buf.length - max) === -1) return 0;
  for (let len = max; len > 0; len--) {
    if (buf.compare(PREFIX, 0, len, buf.length - len, buf.length) === 0) return len;
  }
  return 0;
}
