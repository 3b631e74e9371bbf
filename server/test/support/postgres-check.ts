/**
 * Vitest global set-up: says once, before any test runs, whether the PostgreSQL suites will
 * run. It connects to JUMPSEAT_TEST_DATABASE_URL (else the role scripts/test-postgres.sh
 * makes) and, when that fails, sets the variable empty so those suites skip, saying why in one
 * line; under CI=true a missing PostgreSQL fails the run (`.ci/run` installs and starts it).
 */
import pg from 'pg';
import { DEFAULT_TEST_DATABASE_URL } from './test-database.ts';

const HINT =
  'start PostgreSQL and make the test role: sudo bash scripts/test-postgres.sh (or set JUMPSEAT_TEST_DATABASE_URL to a role that may CREATE DATABASE)';

export default async function checkPostgres(): Promise<void> {
  const url = process.env.JUMPSEAT_TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ can: boolean }>(
      'SELECT rolcreatedb AS can FROM pg_roles WHERE rolname = current_user',
    );
    if (rows[0]?.can !== true) throw new Error('the role may not CREATE DATABASE');
    // Test files run in workers started after this, which inherit the environment.
    process.env.JUMPSEAT_TEST_DATABASE_URL = url;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (process.env.CI === 'true') {
      throw new Error(`CI=true and the PostgreSQL tests cannot run: ${reason}; ${HINT}`);
    }
    console.log(`PostgreSQL tests did not run: ${reason}; ${HINT}.`);
    process.env.JUMPSEAT_TEST_DATABASE_URL = '';
  } finally {
    await client.end().catch(() => undefined);
  }
}
