/**
 * The recordings directory: one asciicast per shell, in parts — `<id>.cast`, then
 * `<id>.2.cast`, … once a part passes the rotation size — appended with whole lines only,
 * and the retention that deletes the oldest files by age and by total size.
 */
import { mkdirSync } from 'node:fs';
import { appendFile, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { AsciicastHeader } from '../../../shared/src/asciicast.ts';
import { headerLine, joinParts } from './asciicast.ts';

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
  writer(sessionId: string, header: AsciicastHeader): RecordingWriter {
    if (!SAFE_ID.test(sessionId)) throw new Error(`unsafe recording id ${sessionId}`);
    return new RecordingWriter((part) => this.partPath(sessionId, part), header, this.limits);
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

/**
 * Appends one shell's event lines, in order, one write per batch and part: each part starts
 * with the header, and a batch that would take a part past the rotation size goes on in the
 * next one (a part holds at least one event, whatever its size).
 */
export class RecordingWriter {
  private part = 0;
  private partBytes = 0;
  private partEvents = 0;
  private queue: Promise<void> = Promise.resolve();
  private failed: Error | null = null;

  constructor(
    private readonly pathOf: (part: number) => string,
    private readonly header: AsciicastHeader,
    private readonly limits: RecordingLimits,
  ) {}

  /** The first write error, if any (later appends are dropped: the disk said no). */
  get error(): Error | null {
    return this.failed;
  }

  /** Queues `lines` (each ending in a newline); resolves when they are on disk. */
  append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return this.queue;
    const writes = this.plan(lines);
    this.queue = this.queue.then(async () => {
      if (this.failed) return;
      for (const { path, data } of writes) {
        try {
          await appendFile(path, data, { mode: FILE_MODE });
        } catch (error) {
          this.failed = error instanceof Error ? error : new Error(String(error));
          return;
        }
      }
    });
    return this.queue;
  }

  /** Waits for every queued append. */
  settled(): Promise<void> {
    return this.queue;
  }

  /** Splits the batch into one text per part, rotating where a part would pass the cap. */
  private plan(lines: readonly string[]): { path: string; data: Buffer }[] {
    const writes: { path: string; data: Buffer }[] = [];
    // Encoded once per line: its size decides the rotation, and the bytes are what is written.
    let pieces: Buffer[] = [];
    const endPart = (): void => {
      if (pieces.length > 0)
        writes.push({ path: this.pathOf(this.part), data: Buffer.concat(pieces) });
      pieces = [];
    };
    const startPart = (): void => {
      endPart();
      this.part += 1;
      const header = Buffer.from(headerLine(this.header));
      pieces.push(header);
      this.partBytes = header.length;
      this.partEvents = 0;
    };
    if (this.part === 0) startPart();
    for (const line of lines) {
      const bytes = Buffer.from(line);
      if (this.partEvents > 0 && this.partBytes + bytes.length > this.limits.maxFileBytes) {
        startPart();
      }
      pieces.push(bytes);
      this.partBytes += bytes.length;
      this.partEvents += 1;
    }
    endPart();
    return writes;
  }
}
