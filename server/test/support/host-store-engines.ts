/**
 * The two engines the hosts' tables run on (issue 24), for store suites that run the same
 * cases on both: the data dir's SQLite file, and PostgreSQL in a database of the suite's own,
 * migrated as a replica does. Each `open` is a store as another start (SQLite) or another
 * replica (PostgreSQL) sees it; PostgreSQL runs only where the tests have one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { HostDrains } from '../../src/control/host-drains.ts';
import { PostgresHostDrains } from '../../src/control/host-drains-postgres.ts';
import { SqliteHostDrains } from '../../src/control/host-drains-sqlite.ts';
import type { HostPlacements } from '../../src/control/host-placements.ts';
import { PostgresPlacements } from '../../src/control/host-placements-postgres.ts';
import { SqlitePlacements } from '../../src/control/host-placements-sqlite.ts';
import { openHostsSqlite } from '../../src/control/hosts-sqlite.ts';
import { type DatabaseUrl, readDatabaseUrl } from '../../src/database/database-url.ts';
import { PostgresDatabase } from '../../src/database/postgres-database.ts';
import { migratePostgres } from '../../src/database/postgres-migrations.ts';
import { POSTGRES_MIGRATIONS } from '../../src/database/schema.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './test-database.ts';

export interface HostStoreEngine {
  readonly name: 'sqlite' | 'postgres';
  /** Before each test: a fresh, empty place for the hosts' tables. */
  setUp(): Promise<void>;
  /** Drains over what this engine keeps; closed at tearDown. */
  drains(): Promise<HostDrains>;
  /** Placements over what this engine keeps (a connection of their own); closed at tearDown. */
  placements(): Promise<HostPlacements>;
  /** After each test: closes what was opened and removes the place. */
  tearDown(): Promise<void>;
}

function sqlite(): HostStoreEngine {
  let dir = '';
  const opened: { close(): void }[] = [];
  const file = (): Database.Database => openHostsSqlite(dir);
  return {
    name: 'sqlite',
    setUp: async () => {
      dir = mkdtempSync(join(tmpdir(), 'jumpseat-host-store-'));
    },
    drains: async () => {
      const drains = new SqliteHostDrains(file());
      opened.push(drains);
      return drains;
    },
    placements: async () => {
      const placements = new SqlitePlacements(file());
      opened.push(placements);
      return placements;
    },
    tearDown: async () => {
      for (const each of opened.splice(0)) each.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgres(): HostStoreEngine {
  let scratch: TestDatabase | undefined;
  const databases: PostgresDatabase[] = [];
  const opened: { close(): void }[] = [];
  /** A pool of its own per store, as each replica has. */
  const connect = async (): Promise<PostgresDatabase> => {
    const url = readDatabaseUrl({ raw: (scratch as TestDatabase).url, source: '--database' });
    const database = new PostgresDatabase(url as DatabaseUrl);
    databases.push(database);
    return database;
  };
  return {
    name: 'postgres',
    setUp: async () => {
      scratch = await createTestDatabase();
      await migratePostgres(await connect(), POSTGRES_MIGRATIONS);
    },
    drains: async () => {
      const drains = await PostgresHostDrains.open(await connect());
      opened.push(drains);
      return drains;
    },
    placements: async () => new PostgresPlacements(await connect()),
    tearDown: async () => {
      for (const each of opened.splice(0)) each.close();
      for (const database of databases.splice(0)) await database.close();
      await scratch?.drop();
      scratch = undefined;
    },
  };
}

/** For `describe.each`: SQLite always, PostgreSQL where the tests have one. */
export const HOST_STORE_ENGINES: readonly HostStoreEngine[] =
  TEST_DATABASE_URL === '' ? [sqlite()] : [sqlite(), postgres()];

/** Polls `check` every few ms until it holds, for at most `withinMs` (a NOTIFY's trip). */
export async function eventually(check: () => boolean, what: string, withinMs = 5000) {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
