/**
 * The two engines history runs on (issue 24), for suites that run the same cases on both:
 * the embedded SQLite file, and PostgreSQL in a database of the test's own (made fresh for
 * each test, so a restart test sees only its own shells). PostgreSQL runs only where the
 * tests have one (postgres-check.ts says why not).
 */
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './test-database.ts';

export interface HistoryEngine {
  readonly name: 'sqlite' | 'postgres';
  /** Before each test: the `database` option for startServer (none for SQLite). */
  setUp(): Promise<{ database?: string }>;
  /** After each test (its servers closed): drops the test's database. */
  tearDown(): Promise<void>;
}

function sqlite(): HistoryEngine {
  return { name: 'sqlite', setUp: async () => ({}), tearDown: async () => undefined };
}

function postgres(): HistoryEngine {
  let database: TestDatabase | undefined;
  return {
    name: 'postgres',
    async setUp() {
      database = await createTestDatabase();
      return { database: database.url };
    },
    async tearDown() {
      await database?.drop();
      database = undefined;
    },
  };
}

/** For `describe.each`: SQLite always, PostgreSQL where the tests have one. */
export const HISTORY_ENGINES: readonly HistoryEngine[] =
  TEST_DATABASE_URL === '' ? [sqlite()] : [sqlite(), postgres()];
