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

/**
 * DROP … WITH (FORCE) ends every other backend in the database, and checks first that it may:
 * an autovacuum worker there (no role of ours) fails the drop with 42501 "must be a member of
 * the role whose process is being terminated" for a role that is not superuser (seen once
 * after a migration test). The worker ends by itself soon; try again a few times.
 */
const DROP_TRIES = 20;
const DROP_RETRY_MS = 250;

async function dropDatabase(name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== '42501' || attempt >= DROP_TRIES) throw error;
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
