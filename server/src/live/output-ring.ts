/**
 * The most recent display output of one shell, by offset, so a viewer that reconnects (or
 * just took a snapshot) can be given exactly the bytes it misses. Bounded: the oldest
 * chunks go first; a resume from before what is kept gets a fresh snapshot instead.
 */
export class OutputRing {
  private readonly chunks: { offset: number; data: Buffer }[] = [];
  private bytes = 0;
  private endOffset = 0;

  constructor(private readonly capacityBytes: number) {}

  /** First offset still held (equal to `end` when nothing is held). */
  get start(): number {
    return this.chunks[0]?.offset ?? this.endOffset;
  }

  /** Offset just past the last byte pushed. */
  get end(): number {
    return this.endOffset;
  }

  /** Appends output that starts exactly at `end` (or anywhere, when the ring is empty). */
  push(offset: number, data: Buffer): void {
    if (data.length === 0) return;
    if (this.chunks.length > 0 && offset !== this.endOffset) {
      throw new Error(`output ring: chunk at ${offset}, expected ${this.endOffset}`);
    }
    this.chunks.push({ offset, data });
    this.bytes += data.length;
    this.endOffset = offset + data.length;
    while (this.bytes > this.capacityBytes && this.chunks.length > 1) {
      const dropped = this.chunks.shift();
      if (dropped) this.bytes -= dropped.data.length;
    }
  }

  /** Whether every byte from `offset` to `end` is held. */
  holds(offset: number): boolean {
    return Number.isSafeInteger(offset) && offset >= this.start && offset <= this.endOffset;
  }

  /** The bytes from `offset` to `end`, or null when they are not all held. */
  from(offset: number): Buffer | null {
    if (!this.holds(offset)) return null;
    const parts: Buffer[] = [];
    for (const chunk of this.chunks) {
      const chunkEnd = chunk.offset + chunk.data.length;
      if (chunkEnd <= offset) continue;
      parts.push(offset > chunk.offset ? chunk.data.subarray(offset - chunk.offset) : chunk.data);
    }
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }
}
