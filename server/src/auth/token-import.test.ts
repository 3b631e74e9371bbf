import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  openDatabase as open,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../../test/support/test-database.ts';
import { migratePostgres } from '../database/postgres-migrations.ts';
import { POSTGRES_MIGRATIONS } from '../database/schema.ts';
import { saveTokenRecords, type TokenRecord } from './token-file.ts';
import { importTokensFile } from './token-import.ts';

function record(n: number): TokenRecord {
  return {
    id: `id-${n}`,
    sha256: n.toString(16).padStart(64, '0'),
    role: 'viewer',
    name: `viewer ${n}`,
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(),
  };
}

describe.runIf(TEST_DATABASE_URL !== '')('importTokensFile (real PostgreSQL)', () => {
  let database: TestDatabase;
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'jumpseat-token-import-'));
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    const db = open(database.url);
    await migratePostgres(db, POSTGRES_MIGRATIONS);
    await db.close();
  });
  afterAll(async () => {
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('two replicas started on one data dir at once add each token once and move the file once', async () => {
    const dir = dataDir();
    saveTokenRecords(dir, [record(1), record(2), record(3)]);
    const [a, b] = [open(database.url), open(database.url)];
    try {
      const done = await Promise.all([importTokensFile(dir, a), importTokensFile(dir, b)]);
      expect(done.reduce((sum, one) => sum + (one?.imported ?? 0), 0)).toBe(3);
      expect(done.filter((one) => one?.movedTo !== null && one !== undefined)).toHaveLength(1);
      expect(readdirSync(dir).sort()).toEqual(['tokens.json.imported']);
      const { rows } = await a.query<{ id: string }>(
        "SELECT id FROM auth_tokens WHERE id LIKE 'id-%' ORDER BY id",
      );
      expect(rows.map((row) => row.id)).toEqual(['id-1', 'id-2', 'id-3']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a later tokens.json is imported beside the earlier import, which stays as it was', async () => {
    const dir = dataDir();
    const db = open(database.url);
    try {
      saveTokenRecords(dir, [record(4)]);
      const first = await importTokensFile(dir, db);
      const kept = readFileSync(join(dir, 'tokens.json.imported'), 'utf8');
      saveTokenRecords(dir, [record(4), record(5)]);
      const second = await importTokensFile(dir, db);
      expect([first?.imported, second?.imported]).toEqual([1, 1]);
      expect(second?.movedTo).toBe(join(dir, 'tokens.json.imported.2'));
      expect(readFileSync(join(dir, 'tokens.json.imported'), 'utf8')).toBe(kept);
      expect(existsSync(join(dir, 'tokens.json'))).toBe(false);
      // Nothing left to import: nothing said.
      expect(await importTokensFile(dir, db)).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});
