/**
 * The control plane's side of the output stream: per shell, the offset it has everything
 * before. A frame's bytes already had (a resend after a reconnect) are dropped, a frame that
 * starts past it is a gap (counted, never papered over), and credit goes back to the host
 * every LINK_CREDIT_EVERY_BYTES so the shell's window reopens.
 */
import { LINK_CREDIT_EVERY_BYTES } from '../../../shared/src/link.ts';

export interface InboxDelivery {
  /** The bytes new to the control plane, in order, at `offset`. */
  readonly offset: number;
  readonly data: Uint8Array;
  /** Bytes the host no longer had (its retention was exceeded), just before `offset`. */
  readonly gapBytes: number;
  /** Set when the host should be told it may send more (the offset to acknowledge). */
  readonly credit: number | null;
}

export class ShellInbox {
  private credited: number;

  constructor(private expected: number) {
    this.credited = expected;
  }

  /** Everything before this has arrived. */
  get offset(): number {
    return this.expected;
  }

  /** A frame from the link; null when all of it was had already. */
  receive(offset: number, data: Uint8Array): InboxDelivery | null {
    const end = offset + data.length;
    if (end <= this.expected) return null;
    const gapBytes = Math.max(0, offset - this.expected);
    const fresh = offset < this.expected ? data.subarray(this.expected - offset) : data;
    const at = Math.max(offset, this.expected);
    this.expected = end;
    let credit: number | null = null;
    if (this.expected - this.credited >= LINK_CREDIT_EVERY_BYTES) {
      credit = this.expected;
      this.credited = this.expected;
    }
    return { offset: at, data: fresh, gapBytes, credit };
  }

  /** The credit to send after a quiet spell, so a window never stays half used. */
  flushCredit(): number | null {
    if (this.credited === this.expected) return null;
    this.credited = this.expected;
    return this.expected;
  }
}
