/**
 * History's PostgreSQL schema steps (schema.ts lists them with every area's): the same rows as
 * the SQLite file (migrations.ts), prefixed `history_` so no other area's table can clash, plus
 * what replicas need — which replica last wrote a shell's row and each replica's heartbeat —
 * and recordings as chunks (one per flush and part) with a row per part saying its size. Times the API shows are kept as the ISO text it shows (sorted as
 * text, as in SQLite); the database's own clock is used only for heartbeats and chunk ages.
 */
import type { PostgresMigration } from '../database/postgres-migrations.ts';

export const HISTORY_MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'history-1',
    sql: `
      CREATE TABLE history_replicas (
        id TEXT PRIMARY KEY,
        started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE history_shells (
        id TEXT PRIMARY KEY,
        agent TEXT,
        owner TEXT,
        owner_id TEXT,
        dialect TEXT NOT NULL,
        started_at TEXT NOT NULL,
        cols INTEGER NOT NULL,
        rows INTEGER NOT NULL,
        last_exit_code INTEGER,
        last_seen_at TEXT NOT NULL,
        ended_at TEXT,
        ending_kind TEXT,
        ending_exit_code INTEGER,
        ending_signal TEXT,
        -- the replica whose flush last wrote this row: while it beats, the shell is its own
        written_by TEXT NOT NULL
      );
      CREATE INDEX history_shells_started ON history_shells (started_at);
      CREATE INDEX history_shells_unfinished ON history_shells (written_by) WHERE ended_at IS NULL;
      CREATE TABLE history_calls (
        id TEXT PRIMARY KEY,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        session_id TEXT NOT NULL REFERENCES history_shells (id),
        command TEXT NOT NULL,
        output TEXT NOT NULL,
        exit_code INTEGER,
        outcome TEXT NOT NULL,
        started_at TEXT NOT NULL,
        duration_ms DOUBLE PRECISION NOT NULL,
        controller TEXT,
        controller_token_id TEXT
      );
      CREATE INDEX history_calls_session ON history_calls (session_id, started_at, seq);
      CREATE TABLE history_control_events (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES history_shells (id),
        at TEXT NOT NULL,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        token_id TEXT,
        keys_recorded INTEGER NOT NULL
      );
      CREATE INDEX history_control_events_session ON history_control_events (session_id, seq);
      CREATE TABLE history_auth_events (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
        url TEXT,
        count INTEGER NOT NULL DEFAULT 1,
        last_at TEXT,
        bucket TEXT UNIQUE
      );
      CREATE INDEX history_auth_events_at ON history_auth_events (at);
      CREATE INDEX history_auth_events_token ON history_auth_events (token_id);
      CREATE TABLE history_recording_chunks (
        session_id TEXT NOT NULL,
        part INTEGER NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        data BYTEA NOT NULL,
        written_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, part, seq)
      );
      -- each part's size and last write, kept with every chunk: the budget and retention read
      -- this, never the chunks
      CREATE TABLE history_recording_parts (
        session_id TEXT NOT NULL,
        part INTEGER NOT NULL,
        bytes BIGINT NOT NULL,
        written_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, part)
      );
    `,
  },
];
