/**
 * The recordings directory: one asciicast per shell, in parts — `<id>.cast`, then
 * `<id>.2.cast`, … once a part passes the rotation size — appended with whole lines only,
 * and the retention that deletes the oldest files by age and by total size.
 */
import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { appendFile, readdir, readFile, stat, truncate, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { AsciicastHeader } from '../../../shared/src/asciicast.ts';
import { joinParts } from './asciicast.ts';
import type { RecordingSpace, SpacePart } from './recording-disk.ts';
import { partsToDelete } from './recording-retention.ts';
import {
  type RecordingLimits,
  type RecordingPartSink,
  RecordingWriter,
  type RecordingWriterContext,
  type WrittenPart,
} from './recording-writer.ts';

/** Recordings hold whatever the shells printed: private to the server's user. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
/** Shell ids are UUIDs; anything else never becomes a path. */
const SAFE_ID = /^[A-Za-z0-9-]{1,100}$/;
const PART_NAME = /^([A-Za-z0-9-]{1,100})(?:\.(\d+))?\.cast$/;

interface PartFile {
  readonly sessionId: string;
  readonly part: number;
  readonly path: string;
}

export class RecordingFiles {
  /** The directory's parts as the recording thread's budget sees them. */
  readonly space: RecordingSpace;

  constructor(
    readonly dir: string,
    private readonly limits: RecordingLimits,
  ) {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    this.space = new RecordingFileSpace(dir);
  }

  /** A writer for a shell's recording (its first part is created on the first append). */
  writer(
    sessionId: string,
    header: AsciicastHeader,
    context?: RecordingWriterContext,
  ): RecordingWriter {
    if (!SAFE_ID.test(sessionId)) throw new Error(`unsafe recording id ${sessionId}`);
    const sink = new RecordingFileSink((part) => partPath(this.dir, sessionId, part));
    return new RecordingWriter(sessionId, sink, header, this.limits, context);
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
   * Deletes files past the age and total-size caps (recording-retention.ts); the newest part
   * of each shell in `live` is kept. Returns the deleted paths.
   */
  async applyRetention(live: ReadonlySet<string>, now = Date.now()): Promise<string[]> {
    const files = await this.files();
    const stats = await Promise.all(
      files.map(async (file) => ({ ...file, stat: await stat(file.path).catch(() => null) })),
    );
    const present = stats.flatMap(({ stat: found, ...file }) =>
      found === null ? [] : [{ ...file, size: found.size, mtime: found.mtimeMs }],
    );
    const deleted: string[] = [];
    for (const file of partsToDelete(present, live, this.limits, now)) {
      await unlink(file.path).catch(() => undefined);
      deleted.push(file.path);
    }
    return deleted;
  }

  private async files(): Promise<PartFile[]> {
    return partFiles(this.dir, await readdir(this.dir).catch(() => []));
  }
}

function partPath(dir: string, sessionId: string, part: number): string {
  return join(dir, part === 1 ? `${sessionId}.cast` : `${sessionId}.${part}.cast`);
}

function partFiles(dir: string, names: readonly string[]): PartFile[] {
  return names.flatMap((name) => {
    const match = PART_NAME.exec(name);
    if (match?.[1] === undefined) return [];
    return [{ sessionId: match[1], part: Number(match[2] ?? 1), path: join(dir, name) }];
  });
}

/** One shell's parts as files, appended whole or cut back to where they were. */
class RecordingFileSink implements RecordingPartSink {
  /** Bytes on disk per part written, to cut a part back after a partial write. */
  private readonly sizes = new Map<number, number>();

  constructor(private readonly pathOf: (part: number) => string) {}

  /**
   * The last part on disk of a recording begun before (a joined host's shell followed again
   * by a restarted control plane): it goes on there, under the header it has.
   */
  async lastPart(): Promise<WrittenPart | undefined> {
    let found: WrittenPart | undefined;
    for (let part = 1; ; part++) {
      try {
        found = { part, bytes: statSync(this.pathOf(part)).size };
        this.sizes.set(part, found.bytes);
      } catch {
        return found;
      }
    }
  }

  async append(part: number, data: Buffer): Promise<void> {
    const path = this.pathOf(part);
    const before = this.sizes.get(part) ?? 0;
    try {
      await appendFile(path, data, { mode: FILE_MODE });
    } catch (error) {
      // A write cut short leaves part of a line: cut the file back so retrying is exact.
      await truncate(path, before).catch(() => undefined);
      throw error;
    }
    this.sizes.set(part, before + data.length);
  }
}

/** The directory as the budget sees it: every part's size and age, and deleting one. */
class RecordingFileSpace implements RecordingSpace {
  constructor(private readonly dir: string) {}

  async prepare(): Promise<boolean> {
    return false;
  }

  scan(): SpacePart[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return partFiles(this.dir, names).flatMap((file) => {
      try {
        const found = statSync(file.path);
        return [{ ...file, key: file.path, size: found.size, mtime: found.mtimeMs, pinned: false }];
      } catch {
        return [];
      }
    });
  }

  remove(part: SpacePart): boolean {
    try {
      unlinkSync(part.key);
      return true;
    } catch {
      // Gone already, or the disk refuses even that: the next file may still go.
      return false;
    }
  }
}
