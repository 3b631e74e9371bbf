/**
 * Real PostgreSQL for the suites that run against it (issue 24): each test file makes a
 * database of its own (`createTestDatabase`) and drops it at the end, so files run in
 * parallel and leave nothing behind. The server to use is `JUMPSEAT_TEST_DATABASE_URL`, a role
 * that may create databases; the global set-up (postgres-check.ts) resolves it once, or says
 * in one line why the PostgreSQL suites do not run (a failure under CI=true).
 * `scripts/test-postgres.sh` makes that role on a machine with Debian's postgresql.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { readDatabaseUrl } from '../../src/database/database-url.ts';
import { PostgresDatabase, type PostgresOptions } from '../../src/database/postgres-database.ts';

/** The role `scripts/test-postgres.sh` makes, on the local cluster. */
export const DEFAULT_TEST_DATABASE_URL =
  'postgres://jumpseat_test:jumpseat_test@127.0.0.1:5432/postgres';

/** The server the suites use, or '' when there is none (set by postgres-check.ts). */
export const TEST_DATABASE_URL =
  process.env.JUMPSEAT_TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;

export interface TestDatabase {
  /** A URL to a database of this test's own. */
  readonly url: string;
  readonly name: string;
  /** Ends every connection to it and drops it. */
  drop(): Promise<void>;
}

/** The control plane's own pool on `url`, as `--database` would open it. */
export function openDatabase(url: string, options: PostgresOptions = {}): PostgresDatabase {
  const read = readDatabaseUrl({ raw: url, source: '--database' });
  if (read === null) throw new Error('no URL');
  return new PostgresDatabase(read, options);
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_DATABASE_URL === '')
    throw new Error('no PostgreSQL for the tests (see postgres-check.ts)');
  const name = `jumpseat_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await asAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => dropDatabase(name),
  };
}

/** Tries at a drop refused because an autovacuum worker is in the database (see below). */
const DROP_ATTEMPTS = 20;
const DROP_RETRY_MS = 250;
/** PostgreSQL's insufficient_privilege. */
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * `DROP … WITH (FORCE)` ends every connection to the database, but a role that is not a
 * superuser may not end an autovacuum worker's (PostgreSQL 15 refuses with 42501, seen once in
 * CI at the end of a long test): the worker is done within moments, so the drop is tried again.
 */
async function dropDatabase(name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== INSUFFICIENT_PRIVILEGE || attempt === DROP_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, DROP_RETRY_MS));
    }
  }
}

async function asAdmin(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({
    connectionString: TEST_DATABASE_URL,
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
