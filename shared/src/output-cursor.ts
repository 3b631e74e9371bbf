/**
 * Where a live client is in a shell's display stream, so that output frames arriving after a
 * reconnect (`?from=`) are written exactly once: bytes already shown are trimmed, a gap is
 * reported instead of being papered over. The protocol's "nothing lost or shown twice", in
 * one place for the web app and the TypeScript client.
 */
import type { OutputFrame } from './live.ts';

export type FrameVerdict =
  /** New bytes to show; the position moves to the frame's end. */
  | { readonly kind: 'write'; readonly data: Uint8Array }
  /** Everything in the frame is already on screen. */
  | { readonly kind: 'duplicate' }
  /** The frame starts after the position: bytes are missing; resume from the position. */
  | { readonly kind: 'gap'; readonly missing: number };

export class OutputCursor {
  /** Null until a snapshot (or a resume) tells where the stream stands. */
  private positionValue: number | null = null;

  get position(): number | null {
    return this.positionValue;
  }

  /** A snapshot covers the stream up to `offset`; a resume continues from it. */
  moveTo(offset: number): void {
    this.positionValue = offset;
  }

  accept(frame: OutputFrame): FrameVerdict {
    const position = this.positionValue;
    if (position === null) return { kind: 'gap', missing: 0 };
    const end = frame.offset + frame.data.length;
    if (end <= position) return { kind: 'duplicate' };
    if (frame.offset > position) return { kind: 'gap', missing: frame.offset - position };
    this.positionValue = end;
    return { kind: 'write', data: frame.data.subarray(position - frame.offset) };
  }
}
