import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  openDatabase as open,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../../test/support/test-database.ts';
import { migratePostgres } from '../database/postgres-migrations.ts';
import { POSTGRES_MIGRATIONS } from '../database/schema.ts';
import { RENAME_BURST } from './rename-limit.ts';
import { PostgresRenameLimit } from './rename-limit-postgres.ts';

describe.runIf(TEST_DATABASE_URL !== '')('rename allowances in PostgreSQL', () => {
  let scratch: TestDatabase;
  beforeAll(async () => {
    scratch = await createTestDatabase();
    const database = open(scratch.url);
    try {
      await migratePostgres(database, POSTGRES_MIGRATIONS);
    } finally {
      await database.close();
    }
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  it('two replicas spend one allowance, and a refused one answers later refusals itself', async () => {
    const [a, b] = [open(scratch.url), open(scratch.url)];
    try {
      const [onA, onB] = [new PostgresRenameLimit(a), new PostgresRenameLimit(b)];
      for (let i = 0; i < RENAME_BURST; i++) await (i % 2 === 0 ? onA : onB).take('tok-1');
      await expect(onB.take('tok-1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      // Another token has its own allowance.
      await expect(onA.take('tok-2')).resolves.toBeUndefined();
      // B remembers its refusal: with its database gone it still answers 429, not 503.
      await b.close();
      await expect(onB.take('tok-1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      // A never refused tok-1 itself: it asks the database, which refuses too.
      await expect(onA.take('tok-1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
    }
  });
});
