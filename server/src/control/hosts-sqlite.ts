/**
 * The hosts' SQLite file (`hosts.db` in the data dir) of a control plane without `--database`:
 * opened owner-only, in WAL mode, and brought to this code's schema (host-schema.ts).
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from '../store/migrations.ts';
import { HOST_SQLITE_MIGRATIONS, HOSTS_DB_NAME } from './host-schema.ts';

const DB_FILE_MODE = 0o600;
/** Lets a busy reader (a backup) hold the file this long before a write fails (ms). */
const BUSY_TIMEOUT_MS = 5000;

export function openHostsSqlite(dataDir: string): Database.Database {
  const path = join(dataDir, HOSTS_DB_NAME);
  let db: Database.Database;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', DB_FILE_MODE));
    chmodSync(path, DB_FILE_MODE);
    db = new Database(path);
  } catch (error) {
    throw new Error(`cannot open the hosts database ${path}: ${(error as Error).message}`);
  }
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  migrate(db, HOST_SQLITE_MIGRATIONS, `the hosts database ${path}`);
  return db;
}
