/**
 * The history database's schema, as numbered steps kept in code: a database at version N gets
 * the steps after N, each in its own transaction, and SQLite's `user_version` records N.
 * Never edit a released step; add the next one.
 */
import type Database from 'better-sqlite3';

export interface Migration {
  readonly version: number;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE shells (
        id TEXT PRIMARY KEY,
        agent TEXT,
        owner TEXT,
        dialect TEXT NOT NULL,
        started_at TEXT NOT NULL,
        cols INTEGER NOT NULL,
        rows INTEGER NOT NULL,
        last_exit_code INTEGER,
        -- the last flush that carried anything of this shell: a crash ends it about there
        last_seen_at TEXT NOT NULL,
        ended_at TEXT,
        ending_kind TEXT,
        ending_exit_code INTEGER,
        ending_signal TEXT
      );
      CREATE INDEX shells_started ON shells (started_at);
      CREATE TABLE calls (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES shells (id),
        command TEXT NOT NULL,
        output TEXT NOT NULL,
        exit_code INTEGER,
        outcome TEXT NOT NULL,
        started_at TEXT NOT NULL,
        duration_ms REAL NOT NULL,
        controller TEXT
      );
      CREATE INDEX calls_session ON calls (session_id, started_at);
      CREATE TABLE control_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES shells (id),
        at TEXT NOT NULL,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        keys_recorded INTEGER NOT NULL
      );
      CREATE INDEX control_events_session ON control_events (session_id, seq);
      CREATE TABLE auth_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        kind TEXT NOT NULL,
        token_id TEXT,
        name TEXT,
        role TEXT,
        scope TEXT,
        by_name TEXT,
        address TEXT,
        status INTEGER,
        reason TEXT,
        method TEXT,
        url TEXT
      );
    `,
  },
  {
    // Issue 13: who owns a person's shell (it is private to them), and the token id kept with
    // every name that took the controls.
    version: 2,
    sql: `
      ALTER TABLE shells ADD COLUMN owner_id TEXT;
      ALTER TABLE calls ADD COLUMN controller_token_id TEXT;
      ALTER TABLE control_events ADD COLUMN token_id TEXT;
    `,
  },
  {
    // Issue 15: refusals are one row per address, status and minute with a count (the bucket
    // names it), and the audit is read by kind, token and time.
    version: 3,
    sql: `
      ALTER TABLE auth_events ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE auth_events ADD COLUMN last_at TEXT;
      ALTER TABLE auth_events ADD COLUMN bucket TEXT;
      CREATE UNIQUE INDEX auth_events_bucket ON auth_events (bucket);
      CREATE INDEX auth_events_at ON auth_events (at);
      CREATE INDEX auth_events_token ON auth_events (token_id);
    `,
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** Brings `db` up to SCHEMA_VERSION; refuses a database written by a newer jumpseat.
 *  `what` names the file in that refusal (the hosts' file uses these steps too). */
export function migrate(
  db: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
  what = 'the history database',
): void {
  const current = Number(db.pragma('user_version', { simple: true }));
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(
      `${what} is at schema version ${current}, newer than this jumpseat's ${latest}; upgrade jumpseat or use another --data-dir`,
    );
  }
  for (const step of migrations) {
    if (step.version <= current) continue;
    db.transaction(() => {
      db.exec(step.sql);
      // PRAGMA takes no bound parameters; the version is a number from our own code.
      db.pragma(`user_version = ${step.version}`);
    })();
  }
}
