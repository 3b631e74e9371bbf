/**
 * One shell's recording as it is written: event lines planned into parts (a new part past the
 * rotation size), under the total cap's budget, and what the storage refuses kept in memory
 * (bounded) and tried again. Where the parts go is the sink's business (files or PostgreSQL).
 */
import type { AsciicastHeader } from '../../../shared/src/asciicast.ts';
import { headerLine } from './asciicast.ts';
import { type RecordingDisk, recordingCapMarker, recordingGapMarker } from './recording-disk.ts';

export interface RecordingLimits {
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
  readonly maxAgeDays: number;
}

/** What a writer needs beyond its files: the directory's budget and how to word a marker. */
export interface RecordingWriterContext {
  /** The total cap and the disk's state; null writes without a budget. */
  readonly disk: RecordingDisk | null;
  /** An asciicast marker (`m`) event line saying `text`, stamped now. */
  readonly markerLine: (text: string) => string;
}

interface PlannedWrite {
  readonly part: number;
  readonly data: Buffer;
  /** Counted in the disk's kept bytes (it waited for a failing disk). */
  kept: boolean;
}

/** A recording's part already written, and its size. */
export interface WrittenPart {
  readonly part: number;
  readonly bytes: number;
}

/**
 * Where one shell's parts go: files in the data dir (recording-files.ts) or chunks in
 * PostgreSQL (postgres-recording-space.ts).
 */
export interface RecordingPartSink {
  /** The last part written before (a joined host's shell followed again after a restart). */
  lastPart(): Promise<WrittenPart | undefined>;
  /** Appends `data` to `part`, all or nothing (a failed write leaves the part as it was). */
  append(part: number, data: Buffer): Promise<void>;
}

/**
 * Appends one shell's event lines, in order, one write per batch and part: each part starts
 * with the header, and a batch that would take a part past the rotation size goes on in the
 * next one (a part holds at least one event, whatever its size). With a budget, a line that
 * does not fit the total cap is dropped and a marker says so (another when recording resumes);
 * a write the disk refuses waits, with the lines after it (bounded), and is tried again.
 */
export class RecordingWriter {
  private part = 0;
  private partBytes = 0;
  private partEvents = 0;
  private queue: Promise<void> = Promise.resolve();
  private failed: Error | null = null;
  private pending: PlannedWrite[] = [];
  /** Lines gathered while the disk refused writes, not yet planned into parts. */
  private keptLines: string[] = [];
  private keptLineBytes = 0;
  /** How many appends those lines came in (the disk counts each as one kept item). */
  private keptLineBatches = 0;
  /** Output dropped because the memory bound was reached while the disk refused writes. */
  private lostBytes = 0;
  /** What the disk said when those bytes were dropped (for the marker). */
  private lostCode = '';
  /** The total cap stopped recording; the bytes dropped since. */
  private capped = false;
  private cappedBytes = 0;
  /** The sink was asked for the part a previous run left (once, before the first write). */
  private resumed = false;

  constructor(
    /** The shell whose recording this is (its files are never deleted to make room). */
    readonly sessionId: string,
    private readonly sink: RecordingPartSink,
    private readonly header: AsciicastHeader,
    private readonly limits: RecordingLimits,
    private readonly context: RecordingWriterContext = { disk: null, markerLine: () => '' },
  ) {}

  /** The first write error, if any (with a budget, failed writes wait instead). */
  get error(): Error | null {
    return this.failed;
  }

  /** Writes or lines wait for the disk. */
  get waiting(): boolean {
    return this.pending.length > 0 || this.keptLines.length > 0;
  }

  /** Queues `lines` (each ending in a newline); resolves when they are on disk (or wait). */
  append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return this.queue;
    this.queue = this.queue.then(() => this.run(lines));
    return this.queue;
  }

  /** Tries what waits for the disk again. */
  retry(): Promise<void> {
    this.queue = this.queue.then(async () => {
      if (!this.waiting) return;
      if (!(await this.drain())) return;
      await this.run([]);
    });
    return this.queue;
  }

  /** Waits for every queued append. */
  settled(): Promise<void> {
    return this.queue;
  }

  private async run(lines: readonly string[]): Promise<void> {
    if (this.failed) return;
    const { disk } = this.context;
    if (!this.resumed && !(await this.resume())) {
      this.keep(lines);
      return;
    }
    await disk?.prepare();
    if (this.pending.length > 0 && !(await this.drain())) {
      this.keep(lines);
      return;
    }
    let batch = lines;
    if (this.keptLines.length > 0) {
      const gap =
        this.lostBytes > 0
          ? [this.context.markerLine(recordingGapMarker(this.lostBytes, this.lostCode))]
          : [];
      batch = [...gap, ...this.keptLines, ...lines];
      disk?.unkeep(this.keptLineBytes, this.keptLineBatches);
      this.keptLines = [];
      this.keptLineBytes = 0;
      this.keptLineBatches = 0;
      this.lostBytes = 0;
    }
    if (batch.length === 0) return;
    this.pending = this.plan(batch);
    await this.drain();
  }

  /** A recording begun before goes on in its last part, under the header it has. */
  private async resume(): Promise<boolean> {
    let written: WrittenPart | undefined;
    try {
      written = await this.sink.lastPart();
    } catch (error) {
      this.context.disk?.failed(error);
      return false;
    }
    this.resumed = true;
    if (written === undefined) return true;
    this.part = written.part;
    this.partBytes = written.bytes;
    this.partEvents = 1;
    return true;
  }

  /** Holds lines while the disk refuses writes; past the memory bound they are dropped. */
  private keep(lines: readonly string[]): void {
    const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
    const { disk } = this.context;
    if (disk === null || disk.keep(bytes)) {
      this.keptLines.push(...lines);
      this.keptLineBytes += bytes;
      this.keptLineBatches += 1;
    } else {
      this.lostBytes += bytes;
      this.lostCode = `the disk refused it: ${disk.failingCode}`;
    }
  }

  /** Writes the planned parts in order; false (the rest waiting) when the disk refuses one. */
  private async drain(): Promise<boolean> {
    const { disk } = this.context;
    while (this.pending.length > 0) {
      const write = this.pending[0] as PlannedWrite;
      try {
        await this.sink.append(write.part, write.data);
      } catch (error) {
        if (disk === null) {
          this.failed = error instanceof Error ? error : new Error(String(error));
          this.pending = [];
          return false;
        }
        disk.failed(error);
        for (const waiting of this.pending) {
          if (waiting.kept) continue;
          waiting.kept = true;
          disk.hold(waiting.data.length);
        }
        disk.report();
        return false;
      }
      this.pending.shift();
      disk?.landed(write.data.length);
      if (write.kept) disk?.unkeep(write.data.length);
    }
    // Back only once nothing of anyone's waits: a small write may pass on a nearly full disk.
    if (disk !== null && disk.keptBytes === 0) disk.wroteAgain();
    return true;
  }

  /** Splits the batch into one text per part, rotating where a part would pass the cap. */
  private plan(lines: readonly string[]): PlannedWrite[] {
    const writes: PlannedWrite[] = [];
    const { disk } = this.context;
    let pieces: Buffer[] = [];
    const endPart = (): void => {
      if (pieces.length > 0)
        writes.push({ part: this.part, data: Buffer.concat(pieces), kept: false });
      pieces = [];
    };
    const header = Buffer.from(headerLine(this.header));
    /** Adds one line (a new part first when due); false when the budget has no room. */
    const push = (bytes: Buffer, marker: boolean): boolean => {
      const newPart =
        this.part === 0 ||
        (this.partEvents > 0 && this.partBytes + bytes.length > this.limits.maxFileBytes);
      const cost = (newPart ? header.length : 0) + bytes.length;
      if (disk !== null && !disk.reserve(cost, marker)) return false;
      if (newPart) {
        endPart();
        this.part += 1;
        pieces.push(header);
        this.partBytes = header.length;
        this.partEvents = 0;
      }
      pieces.push(bytes);
      this.partBytes += bytes.length;
      this.partEvents += 1;
      return true;
    };
    const marker = (text: string): boolean =>
      push(Buffer.from(this.context.markerLine(text)), true);
    // Once capped, room is looked for once per batch (a look may scan the directory).
    let looked = false;
    for (const line of lines) {
      const bytes = Buffer.from(line);
      if (this.capped) {
        if (looked) {
          this.cappedBytes += bytes.length;
          continue;
        }
        looked = true;
        const resume = recordingGapMarker(this.cappedBytes, 'the recordings cap');
        if (!disk?.reserve(Buffer.byteLength(resume) + bytes.length + header.length)) {
          this.cappedBytes += bytes.length;
          continue;
        }
        disk.release(Buffer.byteLength(resume) + bytes.length + header.length);
        marker(resume);
        this.capped = false;
        this.cappedBytes = 0;
      }
      if (push(bytes, false)) continue;
      this.capped = true;
      looked = true;
      this.cappedBytes = bytes.length;
      marker(recordingCapMarker(disk?.maxTotalBytes ?? 0));
    }
    endPart();
    return writes;
  }
}
