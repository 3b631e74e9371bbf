import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseCut } from '../../test/support/database-cut.ts';
import {
  createTestDatabase,
  openDatabase as open,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../../test/support/test-database.ts';
import { type DatabaseHealth, DatabaseUnavailable } from './postgres-database.ts';
import { migratePostgres, type PostgresMigration } from './postgres-migrations.ts';
import { POSTGRES_MIGRATIONS } from './schema.ts';

function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const look = () => {
      if (check()) resolve();
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(look, 20);
    };
    look();
  });
}

describe.runIf(TEST_DATABASE_URL !== '')("PostgreSQL (real, a database of this file's own)", () => {
  let scratch: TestDatabase;
  beforeAll(async () => {
    scratch = await createTestDatabase();
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  it('three replicas starting at once apply each step exactly once, under the lock', async () => {
    const own = await createTestDatabase();
    const steps: PostgresMigration[] = [
      ...POSTGRES_MIGRATIONS,
      // Slow enough that the three surely overlap; a second run of it would fail (no IF NOT EXISTS).
      { name: 'test-1', sql: 'SELECT pg_sleep(0.3); CREATE TABLE raced (n INT)' },
      { name: 'test-2', sql: 'INSERT INTO raced VALUES (1)' },
    ];
    const [first, second, third] = [open(own.url), open(own.url), open(own.url)];
    const replicas = [first, second, third];
    try {
      const reports = await Promise.all(replicas.map((db) => migratePostgres(db, steps)));
      const applied = reports.flatMap((r) => r.applied).sort();
      expect(applied).toEqual(steps.map((s) => s.name).sort());
      const rows = await first.query<{ n: number }>('SELECT n FROM raced');
      expect(rows.rows).toEqual([{ n: 1 }]);
      // And a later start applies nothing.
      expect((await migratePostgres(second, steps)).applied).toEqual([]);
    } finally {
      await Promise.all(replicas.map((db) => db.close()));
      await own.drop();
    }
  });

  it('a failing step leaves the steps before it and nothing of itself; fixed, it runs', async () => {
    const db = open(scratch.url);
    try {
      const first = { name: 'x-1', sql: 'CREATE TABLE x1 (n INT)' };
      const bad = [
        first,
        { name: 'x-2', sql: 'CREATE TABLE x2 (n INT); SELECT no_such_function()' },
      ];
      await expect(migratePostgres(db, bad)).rejects.toThrow(/no_such_function/);
      const tables = async () =>
        (
          await db.query<{ t: string }>(
            "SELECT tablename AS t FROM pg_tables WHERE tablename IN ('x1','x2') ORDER BY 1",
          )
        ).rows.map((r) => r.t);
      expect(await tables()).toEqual(['x1']);
      const fixed = [first, { name: 'x-2', sql: 'CREATE TABLE x2 (n INT)' }];
      expect((await migratePostgres(db, fixed)).applied).toEqual(['x-2']);
      expect(await tables()).toEqual(['x1', 'x2']);
      // A database with a step this code does not know was written by a newer jumpseat.
      await expect(migratePostgres(db, [first])).rejects.toThrow(
        'the database holds schema steps this jumpseat does not know (x-2): it was written by a newer jumpseat; upgrade this one or use another --database',
      );
    } finally {
      await db.close();
    }
  });

  it('a notification reaches every replica, and again after the listening connection was cut', async () => {
    const a = open(scratch.url, { listenRetryMs: 50 });
    const b = open(scratch.url, { listenRetryMs: 50 });
    try {
      const heardA: string[] = [];
      const heardB: string[] = [];
      await a.listen('jumpseat_test', (p) => heardA.push(p));
      await b.listen('jumpseat_test', (p) => heardB.push(p));
      await a.notify('jumpseat_test', 'one');
      await until(
        () => heardA.includes('one') && heardB.includes('one'),
        'both replicas to hear "one"',
      );

      let resynced = 0;
      b.onListenReconnect(() => resynced++);
      // Cut the listening connections from the server side, as a restart or a proxy would.
      await a.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'jumpseat-listen' AND datname = current_database()",
      );
      await until(() => resynced >= 1, 'the listener to come back and say so');
      await a.notify('jumpseat_test', 'two');
      await until(() => heardB.includes('two'), 'b to hear "two" after the cut');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('the listener comes back once the database answers again, not at its next retry, and says so', async () => {
    const cut = await DatabaseCut.open(scratch.url);
    // A retry a minute away: only the database's return can bring the listener back in time.
    const db = open(cut.relayedUrl, { listenRetryMs: 60_000 });
    const writer = open(scratch.url);
    try {
      const heard: string[] = [];
      await db.listen('jumpseat_back', (p) => heard.push(p));
      let resynced = 0;
      db.onListenReconnect(() => resynced++);
      await cut.cut();
      await until(() => !db.state.available, 'the cut to be noticed');
      await writer.notify('jumpseat_back', 'missed');
      await cut.restore();
      await until(() => resynced === 1, 'the listener back with the database', 15_000);
      await writer.notify('jumpseat_back', 'heard');
      await until(() => heard.includes('heard'), 'a notification after the return');
      expect(heard).toEqual(['heard']);
    } finally {
      await Promise.all([db.close(), writer.close()]);
      await cut.close();
    }
  });

  it('a connection that breaks inside a transaction fails it as unavailable, and the process lives on', async () => {
    const cut = await DatabaseCut.open(scratch.url);
    const db = open(cut.relayedUrl);
    try {
      let entered: () => void = () => undefined;
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      let goOn: () => void = () => undefined;
      const cutDone = new Promise<void>((resolve) => {
        goOn = resolve;
      });
      const work = db.transaction(async (client) => {
        await client.query('SELECT 1');
        entered();
        // Between two statements: no query of its own hears the break, only the connection.
        await cutDone;
        await client.query('SELECT 2');
      });
      await inside;
      await cut.cut();
      await until(() => !db.state.available, 'the break to be heard');
      goOn();
      const failure = await work.catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(DatabaseUnavailable);
      await cut.restore();
      expect((await db.query<{ n: number }>('SELECT 3 AS n')).rows).toEqual([{ n: 3 }]);
    } finally {
      await db.close();
      await cut.close();
    }
  });

  it('an unreachable database is "unavailable" with the reason, and a query says so', async () => {
    const port = await closedPort();
    const db = open(`postgres://u:hunter2@127.0.0.1:${port}/x`, { connectTimeoutMs: 1000 });
    const seen: DatabaseHealth[] = [];
    db.onHealthChange((h) => seen.push(h));
    try {
      const failure = await db.query('SELECT 1').catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(DatabaseUnavailable);
      expect(String((failure as Error).message)).toMatch(
        /^the database is unavailable: ECONNREFUSED/,
      );
      expect(String((failure as Error).message)).not.toContain('hunter2');
      expect(db.state.available).toBe(false);
      expect(seen.map((h) => h.available)).toEqual([false]);
      // A bad statement on a live database is the statement's error, not unavailability.
      const live = open(scratch.url);
      const bad = await live.query('SELEKT 1').catch((e: unknown) => e);
      expect(bad).not.toBeInstanceOf(DatabaseUnavailable);
      expect(live.state.available).toBe(true);
      await live.close();
    } finally {
      await db.close();
    }
  });
});

/** A port nothing listens on: bound, then closed. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
