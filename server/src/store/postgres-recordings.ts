/**
 * Recordings in the control plane's PostgreSQL (`--database`): each part of a shell's
 * asciicast is a run of chunks (one per flush, whole lines only, `bytea`), and
 * `history_recording_parts` keeps each part's size and last write, so the budget and retention
 * never read the chunks. The recording thread writes (PostgresRecordingWriters, its own small
 * pool); the main thread reads and applies retention (PostgresRecordingStore). The caps are the
 * file engine's: `recordingMaxFileBytes` starts a new part, `recordingMaxTotalBytes` holds for
 * all replicas together (each sees the others' parts as of its last look, at most
 * SPACE_REREAD_MS old), `recordingMaxAgeDays` deletes parts not written for that long.
 */
import type { AsciicastHeader } from '../../../shared/src/asciicast.ts';
import { DatabaseUnavailable, type PostgresDatabase } from '../database/postgres-database.ts';
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

/** How old the budget's view of every replica's parts may get before a batch reads it again. */
export const SPACE_REREAD_MS = 5000;

/** Every part with its size, age (ms) and whether its shell runs still (on any replica). */
const PARTS = `
  SELECT p.session_id, p.part, p.bytes::float8 AS bytes,
    (extract(epoch FROM p.written_at) * 1000)::float8 AS mtime,
    (s.id IS NOT NULL AND s.ended_at IS NULL) AS running
  FROM history_recording_parts p LEFT JOIN history_shells s ON s.id = p.session_id`;

interface PartRow {
  session_id: string;
  part: number;
  bytes: number;
  mtime: number;
  running: boolean;
}

function spacePart(row: PartRow): SpacePart & { readonly part: number } {
  return {
    key: `${row.session_id}/${row.part}`,
    sessionId: row.session_id,
    part: row.part,
    size: row.bytes,
    mtime: row.mtime,
    pinned: row.running,
  };
}

function ensureAvailable(database: PostgresDatabase): void {
  const { state } = database;
  if (!state.available) throw new DatabaseUnavailable(state.reason ?? 'it does not answer');
}

async function deletePart(database: PostgresDatabase, sessionId: string, part: number) {
  await database.transaction(async (client) => {
    const where = 'WHERE session_id = $1 AND part = $2';
    await client.query(`DELETE FROM history_recording_chunks ${where}`, [sessionId, part]);
    await client.query(`DELETE FROM history_recording_parts ${where}`, [sessionId, part]);
  });
}

/** The recording thread's side: writers whose parts are chunks, and the budget's view. */
export class PostgresRecordingWriters implements RecordingSpace {
  private parts = new Map<string, SpacePart>();
  private readAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly limits: RecordingLimits,
    /** A part the budget deleted could not be (told; the next look sees it again). */
    private readonly onError: (error: unknown) => void,
  ) {}

  get space(): RecordingSpace {
    return this;
  }

  writer(
    sessionId: string,
    header: AsciicastHeader,
    context?: RecordingWriterContext,
  ): RecordingWriter {
    return new RecordingWriter(
      sessionId,
      new PostgresPartSink(this.database, sessionId, (part, bytes) =>
        this.wrote(sessionId, part, bytes),
      ),
      header,
      this.limits,
      context,
    );
  }

  async prepare(): Promise<boolean> {
    if (Date.now() - this.readAt < SPACE_REREAD_MS) return false;
    ensureAvailable(this.database);
    const rows = (await this.database.query<PartRow>(PARTS)).rows;
    this.parts = new Map(rows.map((row) => [spacePart(row).key, spacePart(row)]));
    this.readAt = Date.now();
    return true;
  }

  scan(): SpacePart[] {
    return [...this.parts.values()];
  }

  /** Forgets the part at once (the budget counts it gone) and deletes it in the background. */
  remove(part: SpacePart): boolean {
    this.parts.delete(part.key);
    const [sessionId, number] = part.key.split('/');
    deletePart(this.database, sessionId ?? '', Number(number)).catch(this.onError);
    return true;
  }

  private wrote(sessionId: string, part: number, bytes: number): void {
    const key = `${sessionId}/${part}`;
    const known = this.parts.get(key);
    this.parts.set(key, {
      key,
      sessionId,
      size: (known?.size ?? 0) + bytes,
      mtime: Date.now(),
      pinned: known?.pinned ?? false,
    });
  }
}

/** One shell's parts as chunks: each append is one chunk and its part's size, in one transaction. */
class PostgresPartSink implements RecordingPartSink {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly sessionId: string,
    private readonly wrote: (part: number, bytes: number) => void,
  ) {}

  async lastPart(): Promise<WrittenPart | undefined> {
    ensureAvailable(this.database);
    const { rows } = await this.database.query<{ part: number; bytes: number }>(
      `SELECT part, bytes::float8 AS bytes FROM history_recording_parts
       WHERE session_id = $1 ORDER BY part DESC LIMIT 1`,
      [this.sessionId],
    );
    const [last] = rows;
    return last === undefined ? undefined : { part: last.part, bytes: last.bytes };
  }

  async append(part: number, data: Buffer): Promise<void> {
    ensureAvailable(this.database);
    await this.database.transaction(async (client) => {
      await client.query(
        'INSERT INTO history_recording_chunks (session_id, part, data) VALUES ($1, $2, $3)',
        [this.sessionId, part, data],
      );
      await client.query(
        `INSERT INTO history_recording_parts (session_id, part, bytes) VALUES ($1, $2, $3)
         ON CONFLICT (session_id, part) DO UPDATE
         SET bytes = history_recording_parts.bytes + excluded.bytes, written_at = now()`,
        [this.sessionId, part, data.length],
      );
    });
    this.wrote(part, data.length);
  }
}

/** The main thread's side: a recording read back as one asciicast, and retention. */
export class PostgresRecordingStore {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly limits: RecordingLimits,
  ) {}

  /** The shell's whole recording (its parts joined, as the file engine gives it), or null. */
  async read(sessionId: string): Promise<string | null> {
    ensureAvailable(this.database);
    const { rows } = await this.database.query<{ part: number; data: Buffer }>(
      'SELECT part, data FROM history_recording_chunks WHERE session_id = $1 ORDER BY part, seq',
      [sessionId],
    );
    if (rows.length === 0) return null;
    const parts = new Map<number, Buffer[]>();
    for (const row of rows) parts.set(row.part, [...(parts.get(row.part) ?? []), row.data]);
    const texts = [...parts.values()].map((chunks) => Buffer.concat(chunks).toString('utf8'));
    const joined = joinParts(texts);
    return joined === '' ? null : joined;
  }

  /**
   * Deletes parts past the age and total-size caps (recording-retention.ts); the newest part
   * of each shell running here (`live`) or on another replica is kept. Returns `id/part` keys.
   */
  async applyRetention(live: ReadonlySet<string>, now = Date.now()): Promise<string[]> {
    ensureAvailable(this.database);
    const parts = (await this.database.query<PartRow>(PARTS)).rows.map(spacePart);
    const running = new Set([...live, ...parts.filter((p) => p.pinned).map((p) => p.sessionId)]);
    const deleted: string[] = [];
    for (const part of partsToDelete(parts, running, this.limits, now)) {
      await deletePart(this.database, part.sessionId, part.part);
      deleted.push(part.key);
    }
    return deleted;
  }
}
