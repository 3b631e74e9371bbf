/**
 * `jumpseat serve --database postgres://…` (issue 24): the real server against a real
 * PostgreSQL database of this file's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, jumpseat, serve } from './support/cli-process.ts';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
} from './support/test-database.ts';

describe.runIf(TEST_DATABASE_URL !== '')('serve --database', () => {
  let database: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'jumpseat-database-start-'));
  });
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('migrates the database, says so with the password masked, and reports it on /healthz', async () => {
    const password = new URL(database.url).password;
    const server = await serve(
      ['--data-dir', dataDir, '--sandbox', 'off'],
      cleanEnv({ JUMPSEAT_DATABASE_URL: database.url }),
      { fromSource: true, startDeadlineMs: 60_000 },
    );
    try {
      const masked = new URL(database.url);
      masked.password = '***';
      // The banner's later lines come a moment after the listening line serve() waits for.
      await expect
        .poll(() => server.stdout(), { timeout: 10_000 })
        .toContain(`database: ${masked.toString()}\n`);
      expect(server.stdout() + server.stderr()).not.toContain(`:${password}@`);
      const health = (await (await fetch(`${server.origin}/healthz`)).json()) as {
        database: string;
      };
      expect(health.database).toBe('ok');
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const steps = await client.query<{ name: string }>('SELECT name FROM jumpseat_migrations');
      await client.end();
      expect(steps.rows.map((r) => r.name)).toContain('core-1');
    } finally {
      server.process.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  it('an unreachable database stops the start with exit 1, naming it without the password', async () => {
    const finished = await jumpseat(
      ['serve', '--port', '0', '--data-dir', dataDir, '--sandbox', 'off'],
      cleanEnv({ JUMPSEAT_DATABASE_URL: 'postgres://someone:hunter2@127.0.0.1:1/nowhere' }),
    );
    expect(finished.status).toBe(1);
    expect(finished.stderr).toMatch(
      /^jumpseat: cannot use the database postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nowhere: connect ECONNREFUSED 127\.0\.0\.1:1\n$/,
    );
    expect(finished.stderr + finished.stdout).not.toContain('hunter2');
  });

  it('a URL that is not PostgreSQL is a configuration error (exit 2)', async () => {
    const finished = await jumpseat(
      ['serve', '--port', '0', '--data-dir', dataDir, '--database', 'mysql://u:hunter2@db/x'],
      cleanEnv(),
    );
    expect(finished.status).toBe(2);
    expect(finished.stderr).toBe(
      'jumpseat: --database must be a postgres:// URL; leave it unset for the embedded SQLite (got one of scheme "mysql:")\n',
    );
  });
});
