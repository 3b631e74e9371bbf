/**
 * Whether the output so far leaves a terminal inside a control string (OSC, DCS, APC, PM, SOS):
 * a terminal in one takes every byte that follows as the string's, shows none of them, until
 * a terminator (BEL, ST) or an ESC, CAN or SUB ends it. A shell's output ends such a string
 * with the next mark's ESC; the marks are taken out of the stream (marks.ts), so a string a
 * command left open (`printf '\e]0;title'`), or a mark cut short (a Ctrl-C flushes the
 * terminal's output, the tail of a mark with it), would leave every viewer and the screen
 * model showing nothing more, for good. Where a mark is taken out of such a stream, the
 * scanner puts ST in its place: what a terminal shows is what it would have shown with the
 * mark there.
 *
 * Tracked per chunk from its last byte that matters (found with native searches, not a walk
 * over every byte). Bytes that matter: ESC and the byte after it, BEL, CAN, SUB, and the C1
 * string controls in UTF-8 (U+0090, U+0098, U+009C–U+009F), as xterm.js reads them.
 */

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
/** UTF-8's lead byte of U+0080–U+00BF: the C1 controls among them. */
const C1_LEAD = 0xc2;
/** After ESC: `]` OSC, `P` DCS, `_` APC, `^` PM, `X` SOS. */
const ESC_OPENERS = new Set([0x5d, 0x50, 0x5f, 0x5e, 0x58]);
/** U+0090 DCS, U+0098 SOS, U+009D OSC, U+009E PM, U+009F APC (second UTF-8 byte). */
const C1_OPENERS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
/** U+009C ST. */
const C1_ST = 0x9c;
/** The C1 string controls (openers and ST) as UTF-8 encodes them. */
const C1_STRING_CONTROLS = [...C1_OPENERS, C1_ST].map((code) => Buffer.from([C1_LEAD, code]));

/** ST: ends any control string, and does nothing outside one. */
export const STRING_TERMINATOR = Buffer.from('\x1b\\', 'latin1');

export class OpenStringWatch {
  private openValue = false;
  /** The last chunk ended in ESC or in C1_LEAD: its next byte says what it was. */
  private carried: number | null = null;

  /** A string is open: the next byte a terminator does not end would be swallowed. */
  get open(): boolean {
    return this.openValue;
  }

  /** The stream's next bytes, in order. */
  see(data: Uint8Array): void {
    if (data.length === 0) return;
    let from = 0;
    if (this.carried !== null) {
      const lead = this.carried;
      this.carried = null;
      this.openValue = lead === ESC ? ESC_OPENERS.has(data[0] as number) : this.c1(data[0]);
      from = 1;
    }
    let buf = Buffer.from(data.buffer, data.byteOffset, data.length);
    // A C1_LEAD last may be text (°, §) or a string control: the next chunk tells.
    const leadLast = buf.length > from && buf[buf.length - 1] === C1_LEAD;
    if (leadLast) buf = buf.subarray(0, buf.length - 1);
    const last = lastMattering(buf, from);
    if (last !== -1) this.settle(buf, last);
    if (leadLast && this.carried === null) this.carried = C1_LEAD;
  }

  /** The state after `buf`, from its last byte that matters (at `last`). */
  private settle(buf: Buffer, last: number): void {
    const byte = buf[last] as number;
    if (byte !== ESC && byte !== C1_LEAD) {
      this.openValue = false; // BEL, CAN, SUB
      return;
    }
    const next = buf[last + 1];
    if (next === undefined) {
      // An ESC last ends a string that was open whatever follows; the next chunk tells the rest.
      this.openValue = false;
      this.carried = ESC;
      return;
    }
    this.openValue = byte === ESC ? ESC_OPENERS.has(next) : C1_OPENERS.has(next);
  }

  /** A C1 control after C1_LEAD: opens a string, ends one (ST), or leaves things as they were. */
  private c1(next: number | undefined): boolean {
    if (next !== undefined && C1_OPENERS.has(next)) return true;
    if (next === C1_ST) return false;
    return this.openValue;
  }
}

/**
 * The index of the last byte in buf[from..] that can open or end a string: ESC, BEL, CAN,
 * SUB, or a C1_LEAD whose next byte is a string control (a lead byte last is the caller's).
 * -1 when there is none.
 */
function lastMattering(buf: Buffer, from: number): number {
  let last = Math.max(
    buf.lastIndexOf(ESC),
    buf.lastIndexOf(BEL),
    buf.lastIndexOf(CAN),
    buf.lastIndexOf(SUB),
  );
  if (last < from) last = -1;
  // U+0080–U+00BF are common in text (°, §, NBSP): only a string control's two bytes count,
  // looked for only when a lead byte comes after `last` (one search per control, not a step
  // per lead byte).
  if (buf.lastIndexOf(C1_LEAD) <= last) return last;
  for (const control of C1_STRING_CONTROLS) {
    const at = buf.lastIndexOf(control);
    if (at > last && at >= from) last = at;
  }
  return last;
}
