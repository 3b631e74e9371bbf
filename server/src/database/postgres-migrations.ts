/**
 * The PostgreSQL schema, as named steps kept in code and applied in their listed order. Each
 * area of the control plane (history, auth, hosts…) owns its steps (schema.ts lists them), so
 * two areas never race for a number. Any number of replicas may start at once: the steps run
 * under one advisory lock, each in its own transaction, and `jumpseat_migrations` records which
 * ran. A database holding a step this code does not know was written by a newer jumpseat and
 * is refused. Never edit a released step; add the next one.
 */
import type pg from 'pg';
import type { PostgresDatabase } from './postgres-database.ts';

export interface PostgresMigration {
  /** Unique and stable forever, e.g. `history-1`. */
  readonly name: string;
  readonly sql: string;
}

/** pg_advisory_lock's key for migrations: "jumpseat" in ASCII (0x6a756d7073656174), as one bigint. */
export const MIGRATION_LOCK_KEY = '7671157870035296628';

export interface MigrationReport {
  /** Steps this call applied (empty when another replica, or an earlier start, had). */
  readonly applied: readonly string[];
}

export async function migratePostgres(
  database: PostgresDatabase,
  migrations: readonly PostgresMigration[],
): Promise<MigrationReport> {
  const names = new Set<string>();
  for (const step of migrations) {
    if (names.has(step.name)) throw new Error(`migration ${step.name} is listed twice`);
    names.add(step.name);
  }
  const client = await database.pool.connect();
  let broken = false;
  // Checked out, the connection has no listener of the pool's: a break would end the process
  // instead of failing the start with its reason.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    // A session lock, held across the steps' own transactions; the second replica waits here
    // and then finds every step done.
    await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY}::bigint)`);
    try {
      await client.query(`
        CREATE TABLE IF NOT EXISTS jumpseat_migrations (
          name TEXT PRIMARY KEY,
          applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )`);
      const done = new Set(
        (await client.query<{ name: string }>('SELECT name FROM jumpseat_migrations')).rows.map(
          (row) => row.name,
        ),
      );
      const unknown = [...done].filter((name) => !names.has(name));
      if (unknown.length > 0) {
        throw new Error(
          `the database holds schema steps this jumpseat does not know (${unknown.join(', ')}): it was written by a newer jumpseat; upgrade this one or use another --database`,
        );
      }
      const applied: string[] = [];
      for (const step of migrations) {
        if (done.has(step.name)) continue;
        await inTransaction(client, async () => {
          await client.query(step.sql);
          await client.query('INSERT INTO jumpseat_migrations (name) VALUES ($1)', [step.name]);
        });
        applied.push(step.name);
      }
      return { applied };
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY}::bigint)`).catch(() => {
        broken = true;
      });
    }
  } finally {
    client.release(broken);
    if (!broken) client.removeListener('error', onError);
  }
}

async function inTransaction(client: pg.PoolClient, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
