/**
 * The recordings directory: one asciicast per shell, in parts — `<id>.cast`, then
 * `<id>.2.cast`, … once a part passes the rotation size — appended with whole lines only,
 * and the retention that deletes the oldest files by age and by total size.
 */
import { mkdirSync, statSync } from 'node:fs';
import { appendFile, readdir, readFile, stat, truncate, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { AsciicastHeader } from '../../../shared/src/asciicast.ts';
import { headerLine, joinParts } from './asciicast.ts';
import { type RecordingDisk, recordingCapMarker, recordingGapMarker } from './recording-disk.ts';

export interface RecordingLimits {
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
  readonly maxAgeDays: number;
}

/** Recordings hold whatever the shells printed: private to the server's user. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const MS_PER_DAY = 24 * 3600 * 1000;
/** Shell ids are UUIDs; anything else never becomes a path. */
const SAFE_ID = /^[A-Za-z0-9-]{1,100}$/;
const PART_NAME = /^([A-Za-z0-9-]{1,100})(?:\.(\d+))?\.cast$/;

export class RecordingFiles {
  constructor(
    readonly dir: string,
    private readonly limits: RecordingLimits,
  ) {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  }

  /** A writer for a new shell's recording (its first part is created on the first append). */
  writer(
    sessionId: string,
    header: AsciicastHeader,
    context?: RecordingWriterContext,
  ): RecordingWriter {
    if (!SAFE_ID.test(sessionId)) throw new Error(`unsafe recording id ${sessionId}`);
    return new RecordingWriter(
      sessionId,
      (part) => this.partPath(sessionId, part),
      header,
      this.limits,
      context,
      this.lastPart(sessionId),
    );
  }

  /**
   * The last part on disk of a recording begun before (a joined host's shell followed again
   * by a restarted control plane): it goes on there, under the header it has.
   */
  private lastPart(sessionId: string): WrittenPart | undefined {
    let found: WrittenPart | undefined;
    for (let part = 1; ; part++) {
      try {
        found = { part, bytes: statSync(this.partPath(sessionId, part)).size };
      } catch {
        return found;
      }
    }
  }

  /** The shell's whole recording (its parts joined), or null when none is on disk. */
  async read(sessionId: string): Promise<string | null> {
    if (!SAFE_ID.test(sessionId)) return null;
    const parts = (await this.files()).filter((file) => file.sessionId === sessionId);
    if (parts.length === 0) return null;
    parts.sort((a, b) => a.part - b.part);
    const texts = await Promise.all(
      parts.map((file) => readFile(file.path, 'utf8').catch(() => '')),
    );
    const joined = joinParts(texts);
    return joined === '' ? null : joined;
  }

  /**
   * Deletes files not written for `maxAgeDays`, then the oldest while the total exceeds
   * `maxTotalBytes`; the newest part of each shell in `live` (the one being written) is kept.
   * Returns the deleted paths.
   */
  async applyRetention(live: ReadonlySet<string>, now = Date.now()): Promise<string[]> {
    const files = await this.files();
    const newestPart = new Map<string, number>();
    for (const file of files) {
      newestPart.set(file.sessionId, Math.max(file.part, newestPart.get(file.sessionId) ?? 0));
    }
    const active = new Set(
      files
        .filter((file) => live.has(file.sessionId) && newestPart.get(file.sessionId) === file.part)
        .map((file) => file.path),
    );
    const stats = await Promise.all(
      files.map(async (file) => ({ ...file, stat: await stat(file.path).catch(() => null) })),
    );
    const present = stats.flatMap((file) =>
      file.stat === null
        ? []
        : [{ path: file.path, size: file.stat.size, mtime: file.stat.mtimeMs }],
    );
    present.sort((a, b) => a.mtime - b.mtime);
    const oldestKept = now - this.limits.maxAgeDays * MS_PER_DAY;
    let total = present.reduce((sum, file) => sum + file.size, 0);
    const deleted: string[] = [];
    for (const file of present) {
      if (active.has(file.path)) continue;
      if (file.mtime >= oldestKept && total <= this.limits.maxTotalBytes) continue;
      await unlink(file.path).catch(() => undefined);
      total -= file.size;
      deleted.push(file.path);
    }
    return deleted;
  }

  private partPath(sessionId: string, part: number): string {
    return join(this.dir, part === 1 ? `${sessionId}.cast` : `${sessionId}.${part}.cast`);
  }

  private async files(): Promise<{ sessionId: string; part: number; path: string }[]> {
    const names = await readdir(this.dir).catch(() => []);
    return names.flatMap((name) => {
      const match = PART_NAME.exec(name);
      if (match?.[1] === undefined) return [];
      return [{ sessionId: match[1], part: Number(match[2] ?? 1), path: join(this.dir, name) }];
    });
  }
}

/** What a writer needs beyond its files: the directory's budget and how to word a marker. */
export interface RecordingWriterContext {
  /** The total cap and the disk's state; null writes without a budget. */
  readonly disk: RecordingDisk | null;
  /** An asciicast marker (`m`) event line saying `text`, stamped now. */
  readonly markerLine: (text: string) => string;
}

interface PlannedWrite {
  readonly path: string;
  readonly data: Buffer;
  /** Counted in the disk's kept bytes (it waited for a failing disk). */
  kept: boolean;
}

/** A recording's part already on disk, and its size. */
interface WrittenPart {
  readonly part: number;
  readonly bytes: number;
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
  /** Bytes on disk per part written, to cut a part back after a partial write. */
  private readonly sizes = new Map<string, number>();

  constructor(
    /** The shell whose recording this is (its files are never deleted to make room). */
    readonly sessionId: string,
    private readonly pathOf: (part: number) => string,
    private readonly header: AsciicastHeader,
    private readonly limits: RecordingLimits,
    private readonly context: RecordingWriterContext = { disk: null, markerLine: () => '' },
    written?: WrittenPart,
  ) {
    if (written === undefined) return;
    this.part = written.part;
    this.partBytes = written.bytes;
    this.partEvents = 1;
    this.sizes.set(pathOf(written.part), written.bytes);
  }

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
      const before = this.sizes.get(write.path) ?? 0;
      try {
        await appendFile(write.path, write.data, { mode: FILE_MODE });
      } catch (error) {
        // A write cut short leaves part of a line: cut the file back so retrying is exact.
        await truncate(write.path, before).catch(() => undefined);
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
      this.sizes.set(write.path, before + write.data.length);
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
        writes.push({ path: this.pathOf(this.part), data: Buffer.concat(pieces), kept: false });
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
