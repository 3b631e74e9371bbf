import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAsciicast } from '../../../shared/src/asciicast.ts';
import { openTestDatabase } from '../../test/support/http-server.ts';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../../test/support/test-database.ts';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import { eventLine } from './asciicast.ts';
import { PostgresRecordingStore, PostgresRecordingWriters } from './postgres-recordings.ts';
import { RecordingDisk } from './recording-disk.ts';
import { RecordingFiles } from './recording-files.ts';
import type { RecordingLimits } from './recording-writer.ts';

const HEADER = { version: 2, width: 80, height: 24, timestamp: 1_800_000_000 } as const;
const LIMITS: RecordingLimits = {
  maxFileBytes: 1_000_000,
  maxTotalBytes: 1_000_000,
  maxAgeDays: 30,
};

describe.runIf(TEST_DATABASE_URL !== '')('recordings in PostgreSQL', () => {
  let database: TestDatabase;
  let pool: PostgresDatabase;
  let root: string;
  beforeEach(async () => {
    database = await createTestDatabase();
    pool = await openTestDatabase(database.url);
    root = mkdtempSync(join(tmpdir(), 'jumpseat-pg-recordings-'));
  });
  afterEach(async () => {
    await pool.close();
    await database.drop();
    rmSync(root, { recursive: true, force: true });
  });

  const lines = Array.from({ length: 40 }, (_, i) =>
    eventLine(i * 100, i % 10 === 0 ? 'm' : 'o', `line ${i} é ${'x'.repeat(i * 3)}\r\n`),
  );

  it('rotates into parts at the file size and reads back the same asciicast as the files', async () => {
    const limits = { ...LIMITS, maxFileBytes: 600 };
    const files = new RecordingFiles(join(root, 'recordings'), limits);
    const fileWriter = files.writer('s1', HEADER);
    const writers = new PostgresRecordingWriters(pool, limits, () => undefined);
    const pgWriter = writers.writer('s1', HEADER);
    // In batches, as the recording thread appends one per flush.
    for (let i = 0; i < lines.length; i += 7) {
      await fileWriter.append(lines.slice(i, i + 7));
      await pgWriter.append(lines.slice(i, i + 7));
    }
    expect(pgWriter.error).toBeNull();
    const fromFiles = await files.read('s1');
    const fromDatabase = await new PostgresRecordingStore(pool, limits).read('s1');
    expect(fromDatabase).toBe(fromFiles);
    expect(parseAsciicast(fromDatabase ?? '').events).toHaveLength(40);
    const parts = await pool.query<{ part: number; bytes: string }>(
      'SELECT part, bytes FROM history_recording_parts ORDER BY part',
    );
    expect(parts.rows.length).toBeGreaterThan(3);
    for (const row of parts.rows) expect(Number(row.bytes)).toBeLessThanOrEqual(600);
    expect(await new PostgresRecordingStore(pool, limits).read('nobody')).toBeNull();
  });

  it('a writer for a shell recorded before goes on in its last part', async () => {
    const writers = new PostgresRecordingWriters(pool, LIMITS, () => undefined);
    await writers.writer('s1', HEADER).append(lines.slice(0, 2));
    await writers.writer('s1', HEADER).append(lines.slice(2, 4));
    const text = await new PostgresRecordingStore(pool, LIMITS).read('s1');
    expect(parseAsciicast(text ?? '').events).toHaveLength(4);
    const parts = await pool.query('SELECT part FROM history_recording_parts');
    expect(parts.rows).toEqual([{ part: 1 }]);
  });

  it('retention deletes parts past the age cap and the oldest past the total, never a live newest part', async () => {
    const writers = new PostgresRecordingWriters(pool, LIMITS, () => undefined);
    for (const id of ['old', 'a', 'b', 'live']) {
      await writers.writer(id, HEADER).append([eventLine(0, 'o', 'y'.repeat(1000))]);
    }
    const age = (id: string, days: number) =>
      pool.query(
        `UPDATE history_recording_parts SET written_at = now() - make_interval(days => $2)
         WHERE session_id = $1`,
        [id, days],
      );
    await age('old', 40);
    await age('live', 35);
    await age('a', 3);
    await age('b', 2);
    // Each part is about 1,100 bytes: after 'old' goes (age), 'a' goes too (two fit in 2,500).
    const store = new PostgresRecordingStore(pool, { ...LIMITS, maxTotalBytes: 2500 });
    const deleted = await store.applyRetention(new Set(['live']));
    expect(deleted.sort()).toEqual(['a/1', 'old/1']);
    expect(await store.read('old')).toBeNull();
    expect(await store.read('live')).not.toBeNull();
    const chunks = await pool.query<{ session_id: string }>(
      'SELECT DISTINCT session_id FROM history_recording_chunks ORDER BY session_id',
    );
    expect(chunks.rows.map((row) => row.session_id)).toEqual(['b', 'live']);
  });

  it('the total cap holds at write time: the oldest part not being written makes room', async () => {
    const limits = { ...LIMITS, maxTotalBytes: 4096 + 2500 };
    const writers = new PostgresRecordingWriters(pool, limits, () => undefined);
    const disk = new RecordingDisk(
      writers.space,
      limits.maxTotalBytes,
      () => new Set(['new']),
      () => undefined,
    );
    const context = { disk, markerLine: (text: string) => eventLine(0, 'm', text) };
    await writers.writer('first', HEADER, context).append([eventLine(0, 'o', 'a'.repeat(1000))]);
    await writers.writer('second', HEADER, context).append([eventLine(0, 'o', 'b'.repeat(1000))]);
    await writers.writer('new', HEADER, context).append([eventLine(0, 'o', 'c'.repeat(1000))]);
    // Deleting happens behind the budget's back: wait for the rows to go.
    const deadline = Date.now() + 5000;
    let left: string[] = [];
    do {
      const rows = await pool.query<{ session_id: string }>(
        'SELECT DISTINCT session_id FROM history_recording_parts ORDER BY session_id',
      );
      left = rows.rows.map((row) => row.session_id);
    } while (left.includes('first') && Date.now() < deadline);
    expect(left).toEqual(['new', 'second']);
  });
});
