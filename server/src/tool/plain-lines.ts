/**
 * The output renderer's fast path for the commonest output of all: plain ASCII lines (a build
 * log, `seq`, `ls`). One pass over the bytes both proves that a chunk's start holds nothing a
 * terminal would act on but TAB, LF and CR LF, and drops the CR of each CR LF, where the
 * general path decodes UTF-8, searches for controls and removes those CRs in three passes of
 * its own. The pass stops at the first other byte, and what it read is never read again.
 */

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const DEL = 0x7f;

/** Reused for every chunk (the text is copied out of it): no allocation per chunk. */
let scratch = Buffer.allocUnsafe(64 * 1024);

export interface PlainLines {
  /** The chunk's plain start as text, the CR of every CR LF removed. */
  readonly text: string;
  /** Where the plain start ends: the chunk's length when all of it is plain. */
  readonly end: number;
}

/**
 * The longest start of `chunk` that holds only printable ASCII, TAB, LF and CRs that a LF
 * follows within the chunk (a CR at its very end, whose LF may come in the next chunk, is not
 * plain), as text. What follows it is for the general path.
 */
export function plainLines(chunk: Uint8Array): PlainLines {
  const length = chunk.length;
  if (scratch.length < length) scratch = Buffer.allocUnsafe(length);
  const out = scratch;
  let kept = 0;
  let i = 0;
  for (; i < length; i++) {
    const byte = chunk[i] as number;
    if (byte >= SPACE ? byte >= DEL : byte !== LF && byte !== TAB) {
      if (byte !== CR || chunk[i + 1] !== LF) break;
      continue;
    }
    out[kept++] = byte;
  }
  return { text: out.toString('latin1', 0, kept), end: i };
}
