import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryDatabase } from './history-database.ts';
import { MIGRATIONS, migrate, SCHEMA_VERSION } from './migrations.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-migrations-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function tables(db: Database.Database): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  )
    .map((row) => row.name)
    .filter((name) => !name.startsWith('sqlite_'));
}

describe('migrate', () => {
  it('creates the schema in a new database and records its version', () => {
    const db = new Database(join(root, 'h.db'));
    migrate(db);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(tables(db)).toEqual(['auth_events', 'calls', 'control_events', 'shells']);
    db.close();
  });

  it('applies only the steps after the recorded version, and is a no-op when current', () => {
    const db = new Database(join(root, 'h.db'));
    const steps = [
      { version: 1, sql: 'CREATE TABLE a (x INTEGER)' },
      { version: 2, sql: 'ALTER TABLE a ADD COLUMN y TEXT' },
    ];
    migrate(db, steps.slice(0, 1));
    db.prepare('INSERT INTO a (x) VALUES (7)').run();
    migrate(db, steps);
    migrate(db, steps);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(db.prepare('SELECT x, y FROM a').all()).toEqual([{ x: 7, y: null }]);
    db.close();
  });

  it('leaves the version alone when a step fails', () => {
    const db = new Database(join(root, 'h.db'));
    expect(() =>
      migrate(db, [
        { version: 1, sql: 'CREATE TABLE a (x INTEGER)' },
        { version: 2, sql: 'CREATE TABLE a (x INTEGER)' },
      ]),
    ).toThrow('table a already exists');
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.close();
  });

  it('refuses a database written by a newer jumpseat', () => {
    const path = join(root, 'h.db');
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => new HistoryDatabase(path)).toThrow(
      `the history database is at schema version ${SCHEMA_VERSION + 1}, newer than this jumpseat's ${SCHEMA_VERSION}; upgrade jumpseat or use another --data-dir`,
    );
  });

  it('numbers its steps 1, 2, 3, … in order', () => {
    expect(MIGRATIONS.map((step) => step.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });
});
