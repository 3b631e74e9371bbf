/**
 * The host's side of the output stream: every shell's display bytes kept from the last offset
 * the control plane acknowledged, sent within each shell's credit window, shells taken in
 * turn. A flooding shell fills its own window and waits for credit; a quiet shell's next bytes
 * go out at the next turn. After a reconnect each shell resumes at the offset the control
 * plane names, so nothing is lost or sent twice while the kept bytes reach back that far.
 */
import { LINK_OUTPUT_WINDOW_BYTES } from '../../../shared/src/link.ts';

/**
 * Bytes kept per shell for a resume: a link outage of the grace period at an ordinary pace
 * fits; past it the oldest go, and the control plane sees the gap at its offset.
 */
export const OUTBOX_RETAINED_BYTES = 8 * 1024 * 1024;
/** One output frame's bytes at most, so shells take turns at a fine grain. */
export const OUTBOX_FRAME_BYTES = 64 * 1024;

export interface OutboxFrame {
  readonly shellId: string;
  readonly offset: number;
  readonly data: Buffer;
}

class ShellOutput {
  private chunks: Buffer[] = [];
  /** Offset of the first kept byte. */
  private base: number;
  /** Offset after the last byte pushed. */
  private end: number;
  /** Next offset to send. */
  private sent: number;
  /** The control plane has everything before this. */
  private acked: number;

  constructor(offset: number) {
    this.base = offset;
    this.end = offset;
    this.sent = offset;
    this.acked = offset;
  }

  push(offset: number, data: Buffer): void {
    // A chunk from before a reattach (or a skipped one) keeps the stream's offsets exact.
    if (offset !== this.end) {
      if (offset + data.length <= this.end) return;
      if (offset < this.end) data = data.subarray(this.end - offset);
      else this.dropTo(offset);
      this.end = Math.max(this.end, offset);
    }
    this.chunks.push(data);
    this.end += data.length;
    while (this.end - this.base > OUTBOX_RETAINED_BYTES && this.chunks.length > 1) {
      const dropped = this.chunks.shift() as Buffer;
      this.base += dropped.length;
    }
    if (this.sent < this.base) this.sent = this.base;
  }

  ack(offset: number): void {
    if (offset <= this.acked) return;
    this.acked = Math.min(offset, this.end);
    this.dropTo(this.acked);
    if (this.sent < this.acked) this.sent = this.acked;
  }

  /** Sends from `offset` on (the control plane has what is before it). */
  resumeAt(offset: number): void {
    const at = Math.min(Math.max(offset, this.base), this.end);
    this.acked = at;
    this.sent = at;
    this.dropTo(at);
  }

  /** Sends only what comes from now on (a control plane that knows nothing of the past). */
  resumeNow(): void {
    this.resumeAt(this.end);
  }

  get ready(): boolean {
    return this.sent < this.end && this.sent - this.acked < LINK_OUTPUT_WINDOW_BYTES;
  }

  take(): { offset: number; data: Buffer } | null {
    if (!this.ready) return null;
    const room = Math.min(OUTBOX_FRAME_BYTES, LINK_OUTPUT_WINDOW_BYTES - (this.sent - this.acked));
    const pieces: Buffer[] = [];
    let at = this.base;
    let length = 0;
    for (const chunk of this.chunks) {
      const chunkEnd = at + chunk.length;
      if (chunkEnd > this.sent) {
        const from = Math.max(0, this.sent - at);
        const piece = chunk.subarray(from, from + room - length);
        pieces.push(piece);
        length += piece.length;
        if (length >= room) break;
      }
      at = chunkEnd;
    }
    const offset = this.sent;
    this.sent += length;
    return { offset, data: pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces) };
  }

  private dropTo(offset: number): void {
    while (this.chunks.length > 0) {
      const first = this.chunks[0] as Buffer;
      if (this.base + first.length > offset) break;
      this.chunks.shift();
      this.base += first.length;
    }
    if (this.chunks.length === 0) this.base = Math.max(this.base, Math.min(offset, this.end));
    else if (offset > this.base) {
      this.chunks[0] = (this.chunks[0] as Buffer).subarray(offset - this.base);
      this.base = offset;
    }
  }
}

export class LinkOutbox {
  private readonly shells = new Map<string, ShellOutput>();
  /** Shells in the order they get their turn. */
  private turn: string[] = [];

  add(shellId: string, offset: number): void {
    if (this.shells.has(shellId)) return;
    this.shells.set(shellId, new ShellOutput(offset));
    this.turn.push(shellId);
  }

  remove(shellId: string): void {
    this.shells.delete(shellId);
    this.turn = this.turn.filter((id) => id !== shellId);
  }

  push(shellId: string, offset: number, data: Buffer): void {
    this.shells.get(shellId)?.push(offset, data);
  }

  ack(shellId: string, offset: number): void {
    this.shells.get(shellId)?.ack(offset);
  }

  /** After a (re)connect: listed shells resume where the control plane is, the rest from now. */
  resume(at: ReadonlyMap<string, number>): void {
    for (const [id, output] of this.shells) {
      const offset = at.get(id);
      if (offset === undefined) output.resumeNow();
      else output.resumeAt(offset);
    }
  }

  /** The next frame to send, shells taking turns; null when none may send. */
  take(): OutboxFrame | null {
    for (let tries = 0; tries < this.turn.length; tries++) {
      const id = this.turn.shift() as string;
      this.turn.push(id);
      const taken = this.shells.get(id)?.take();
      if (taken) return { shellId: id, ...taken };
    }
    return null;
  }
}
