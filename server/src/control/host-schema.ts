/**
 * The hosts' tables, on both engines: drains and forgets (host-drains-*.ts) and each agent's
 * last placement (host-placements-*.ts). PostgreSQL's steps are listed with every area's in
 * database/schema.ts; SQLite's live in a file of their own in the data dir (`hosts.db`), so the
 * history file's schema never depends on the control plane's.
 */
import type { PostgresMigration } from '../database/postgres-migrations.ts';
import type { Migration } from '../store/migrations.ts';

export const HOST_MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'hosts-1',
    sql: `
      CREATE TABLE host_drains (
        name TEXT PRIMARY KEY,
        drained_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `,
  },
  {
    name: 'hosts-2',
    sql: `
      -- One row per host name ever forgotten; seq is new at each forget, so a replica that
      -- missed the announcement tells a forget it has not applied from one it has.
      CREATE SEQUENCE host_forgets_seq;
      CREATE TABLE host_forgets (
        name TEXT PRIMARY KEY,
        seq BIGINT NOT NULL DEFAULT nextval('host_forgets_seq'),
        forgotten_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `,
  },
  {
    name: 'hosts-3',
    sql: `
      -- Where each agent's shell of a dialect was placed last; claim grows at each placement,
      -- so two replicas placing the same new shell at once cannot both win (host-placements.ts).
      CREATE TABLE host_placements (
        agent TEXT NOT NULL,
        dialect TEXT NOT NULL,
        host TEXT NOT NULL,
        claim BIGINT NOT NULL,
        placed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (agent, dialect)
      );
      CREATE INDEX host_placements_host ON host_placements (host);
    `,
  },
];

/** `hosts.db` (SQLite, one control plane's own): the same facts, without forgets' numbers
 *  (no other replica needs to catch up on them). */
export const HOST_SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE host_drains (
        name TEXT PRIMARY KEY,
        drained_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    sql: `
      CREATE TABLE host_placements (
        agent TEXT NOT NULL,
        dialect TEXT NOT NULL,
        host TEXT NOT NULL,
        claim INTEGER NOT NULL,
        placed_at TEXT NOT NULL,
        PRIMARY KEY (agent, dialect)
      );
      CREATE INDEX host_placements_host ON host_placements (host);
    `,
  },
];

/** The SQLite file of the hosts' tables, in the data dir. */
export const HOSTS_DB_NAME = 'hosts.db';
