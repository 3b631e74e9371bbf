/**
 * The replicas of one control plane, as PostgreSQL knows them: each writes its row (id, the URL
 * the others reach it at, when it started) and beats every REPLICA_HEARTBEAT_MS; one that
 * missed about three beats is dead to the others. The times are the database's own `now()`,
 * so the replicas' clocks never need to agree. The cluster's secret, which replicas present
 * to each other, is made once by whichever replica comes first, and never leaves the
 * database and the replicas' memory.
 */
import { randomBytes } from 'node:crypto';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import type { PostgresMigration } from '../database/postgres-migrations.ts';

/** How often a replica writes its heartbeat (ms). */
export const REPLICA_HEARTBEAT_MS = 2000;
/** A replica silent this long (about three missed beats) is dead: no one dials it (ms). */
export const REPLICA_DEAD_AFTER_MS = 3 * REPLICA_HEARTBEAT_MS + 500;
/** Rows of replicas dead this long are removed by whoever beats next (ms). */
const REPLICA_FORGET_AFTER_MS = 10 * 60_000;
/** Bytes of the cluster's secret (random; shown base64url). */
const SECRET_BYTES = 32;

export const REPLICA_MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'replicas-1',
    sql: `
      CREATE TABLE replicas (
        id TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE replica_secret (
        only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
        secret TEXT NOT NULL
      );
    `,
  },
];

export interface ReplicaRow {
  readonly id: string;
  readonly url: string;
}

export class ReplicaRegistry {
  constructor(private readonly database: PostgresDatabase) {}

  /** The cluster's secret, made by the first replica that asks. */
  async secret(): Promise<string> {
    await this.database.query(
      'INSERT INTO replica_secret (secret) VALUES ($1) ON CONFLICT (only_row) DO NOTHING',
      [randomBytes(SECRET_BYTES).toString('base64url')],
    );
    const { rows } = await this.database.query<{ secret: string }>(
      'SELECT secret FROM replica_secret',
    );
    const secret = rows[0]?.secret;
    if (secret === undefined) throw new Error('the replicas secret is missing');
    return secret;
  }

  /** This replica's beat: its row written (made on the first), dead rows removed. */
  async beat(self: ReplicaRow): Promise<void> {
    await this.database.query(
      `INSERT INTO replicas (id, url) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), url = EXCLUDED.url`,
      [self.id, self.url],
    );
    await this.database.query(
      'DELETE FROM replicas WHERE heartbeat_at < now() - make_interval(secs => $1)',
      [REPLICA_FORGET_AFTER_MS / 1000],
    );
  }

  /** The other replicas alive now. */
  async peers(selfId: string): Promise<ReplicaRow[]> {
    const { rows } = await this.database.query<ReplicaRow>(
      `SELECT id, url FROM replicas
       WHERE id <> $1 AND heartbeat_at > now() - make_interval(secs => $2)
       ORDER BY id`,
      [selfId, REPLICA_DEAD_AFTER_MS / 1000],
    );
    return rows;
  }

  /** A replica that stops says so at once, so no one dials it until it is dead. */
  async leave(selfId: string): Promise<void> {
    await this.database.query('DELETE FROM replicas WHERE id = $1', [selfId]);
  }
}
