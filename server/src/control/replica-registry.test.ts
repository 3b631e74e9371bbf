import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../../test/support/test-database.ts';
import { readDatabaseUrl } from '../database/database-url.ts';
import { PostgresDatabase } from '../database/postgres-database.ts';
import { migratePostgres } from '../database/postgres-migrations.ts';
import { POSTGRES_MIGRATIONS } from '../database/schema.ts';
import { REPLICA_DEAD_AFTER_MS, ReplicaRegistry } from './replica-registry.ts';

describe.runIf(TEST_DATABASE_URL !== '')('ReplicaRegistry (real PostgreSQL)', () => {
  let scratch: TestDatabase;
  const opened: PostgresDatabase[] = [];
  const open = (): PostgresDatabase => {
    const url = readDatabaseUrl({ raw: scratch.url, source: '--database' });
    if (url === null) throw new Error('no URL');
    const database = new PostgresDatabase(url);
    opened.push(database);
    return database;
  };

  beforeAll(async () => {
    scratch = await createTestDatabase();
    await migratePostgres(open(), POSTGRES_MIGRATIONS);
  });
  afterAll(async () => {
    for (const database of opened) await database.close();
    await scratch?.drop();
  });

  it('makes one secret, whichever of three replicas starting at once asks first', async () => {
    const secrets = await Promise.all(
      [open(), open(), open()].map((database) => new ReplicaRegistry(database).secret()),
    );
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('lists the other live replicas, not one that missed its beats, nor one that left', async () => {
    const database = open();
    const registry = new ReplicaRegistry(database);
    await registry.beat({ id: 'r-a', url: 'http://10.0.0.1:7400/' });
    await registry.beat({ id: 'r-b', url: 'http://10.0.0.2:7400/' });
    await registry.beat({ id: 'r-c', url: 'http://10.0.0.3:7400/' });
    expect(await registry.peers('r-a')).toEqual([
      { id: 'r-b', url: 'http://10.0.0.2:7400/' },
      { id: 'r-c', url: 'http://10.0.0.3:7400/' },
    ]);
    // r-b's last beat is older than about three missed beats: dead to the others.
    await database.query(
      'UPDATE replicas SET heartbeat_at = now() - make_interval(secs => $1) WHERE id = $2',
      [REPLICA_DEAD_AFTER_MS / 1000 + 1, 'r-b'],
    );
    await registry.leave('r-c');
    expect(await registry.peers('r-a')).toEqual([]);
    // A beat brings it back.
    await registry.beat({ id: 'r-b', url: 'http://10.0.0.2:7400/' });
    expect((await registry.peers('r-a')).map((peer) => peer.id)).toEqual(['r-b']);
  });
});
