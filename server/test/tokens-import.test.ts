/**
 * From embedded to `--database` (issue 24): the tokens an embedded server minted into its
 * data dir's tokens.json are imported into PostgreSQL at the first start with a database,
 * each token the database does not have, and the file is renamed tokens.json.imported. Real
 * servers (from source), a real PostgreSQL database per case; the tokens are minted through
 * the API of a real embedded server.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, jumpseat, type Serving, serve } from './support/cli-process.ts';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
} from './support/test-database.ts';

const ADMIN = 'js_tokens-import-admin-token-0123456789';
/** A start under load, with the engine and tsx. */
const START_MS = 60_000;
const REVOKED_BODY = {
  error: { code: 'LINK_ENDED', message: 'this token was revoked; ask the admin for a new one' },
};

interface TokenInfo {
  id: string;
  name: string;
  lastUsedAt: string | null;
}

const root = mkdtempSync(join(tmpdir(), 'jumpseat-tokens-import-'));
const servers: Serving[] = [];
const databases: TestDatabase[] = [];
/** The embedded server's tokens.json, as it left it. */
let original = '';
/** The embedded server's list of its tokens, last uses left out. */
let listedEmbedded: Omit<TokenInfo, 'lastUsedAt'>[] = [];
/** The minted secrets, by what they are for. */
const minted: Record<'agent' | 'operator' | 'viewer' | 'host', string> = {
  agent: '',
  operator: '',
  viewer: '',
  host: '',
};

async function start(dataDir: string, databaseUrl?: string): Promise<Serving> {
  const server = await serve(
    ['--data-dir', dataDir, '--sandbox', 'off'],
    cleanEnv({
      JUMPSEAT_TOKEN: ADMIN,
      ...(databaseUrl === undefined ? {} : { JUMPSEAT_DATABASE_URL: databaseUrl }),
    }),
    { fromSource: true, startDeadlineMs: START_MS },
  );
  servers.push(server);
  return server;
}

async function stop(server: Serving): Promise<void> {
  server.process.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}

async function request(
  server: Serving,
  path: string,
  { method = 'GET', token = ADMIN, body }: { method?: string; token?: string; body?: unknown } = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

async function mint(server: Serving, body: Record<string, unknown>): Promise<string> {
  const minted = await request(server, '/api/tokens', { method: 'POST', body });
  expect(minted.status).toBe(201);
  return (minted.body as { token: string }).token;
}

/** Every token as the admin's list shows it, by id (the database orders equal times by id). */
async function listed(server: Serving): Promise<Omit<TokenInfo, 'lastUsedAt'>[]> {
  const { body } = await request(server, '/api/tokens');
  return (body as TokenInfo[])
    .map(({ lastUsedAt: _lastUsed, ...rest }) => rest)
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** The banner's tokens line, once it is printed (it follows the first line serve() waits for). */
async function importLine(server: Serving): Promise<string> {
  for (let waited = 0; waited < START_MS; waited += 50) {
    const line = /^tokens: .*$/m.exec(server.stdout())?.[0];
    if (line !== undefined) return line;
    if (/^dialects: /m.test(server.stdout())) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no tokens line in the banner: ${server.stdout()}`);
}

/** A data dir holding a copy of the embedded server's tokens.json. */
function dataDirWithCopy(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(root, 'tokens.json.original'), join(dir, 'tokens.json'));
  return dir;
}

async function newDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}

async function rows(database: TestDatabase, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe.runIf(TEST_DATABASE_URL !== '')('tokens.json imported at the switch to --database', () => {
  beforeAll(async () => {
    const dataDir = join(root, 'embedded');
    const embedded = await start(dataDir);
    minted.agent = await mint(embedded, { role: 'agent', agent: 'a1', labels: { gpu: 'yes' } });
    minted.operator = await mint(embedded, { role: 'operator', name: 'Olga' });
    minted.viewer = await mint(embedded, { role: 'viewer', name: 'Gone' });
    minted.host = await mint(embedded, { role: 'host', name: 'h9' });
    const gone = (await listed(embedded)).find((token) => token.name === 'Gone');
    expect((await request(embedded, `/api/tokens/${gone?.id}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    listedEmbedded = await listed(embedded);
    await stop(embedded);
    original = readFileSync(join(dataDir, 'tokens.json'), 'utf8');
    writeFileSync(join(root, 'tokens.json.original'), original, { mode: 0o600 });
  }, 2 * START_MS);

  afterAll(async () => {
    for (const server of servers) {
      if (server.process.exitCode === null && server.process.signalCode === null) {
        server.process.kill('SIGTERM');
        await server.exited;
      }
    }
    for (const database of databases) await database.drop();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it(
    'tokens minted embedded work on the PostgreSQL-backed server with the same data dir; the revoked one stays revoked',
    async () => {
      const dataDir = join(root, 'embedded');
      const database = await newDatabase();
      const server = await start(dataDir, database.url);
      expect(await importLine(server)).toBe(
        `tokens: imported 4 of 4 from ${join(dataDir, 'tokens.json')} into the database (it had the other 0); the file is now tokens.json.imported`,
      );
      expect(existsSync(join(dataDir, 'tokens.json'))).toBe(false);
      expect(readFileSync(join(dataDir, 'tokens.json.imported'), 'utf8')).toBe(original);
      expect(await listed(server)).toEqual(listedEmbedded);
      expect(await request(server, '/api/me', { token: minted.agent })).toMatchObject({
        status: 200,
        body: { role: 'agent', name: 'agent:a1' },
      });
      expect(await request(server, '/api/me', { token: minted.operator })).toMatchObject({
        status: 200,
        body: { role: 'operator', name: 'Olga' },
      });
      expect(await request(server, '/api/me', { token: minted.viewer })).toEqual({
        status: 401,
        body: REVOKED_BODY,
      });
      await stop(server);
      // Imported once: the next start finds no tokens.json, says nothing of it, and still knows them.
      const again = await start(dataDir, database.url);
      expect(await request(again, '/api/me', { token: minted.operator })).toMatchObject({
        status: 200,
      });
      await importLine(again).then(
        (line) => expect.fail(`a second import: ${line}`),
        () => undefined,
      );
      await stop(again);
    },
    4 * START_MS,
  );

  it(
    'two replicas starting together import each token once; a token the database has (revoked there) is not overwritten by a later import',
    async () => {
      const database = await newDatabase();
      const [first, second] = await Promise.all([
        start(dataDirWithCopy('replica-1'), database.url),
        start(dataDirWithCopy('replica-2'), database.url),
      ]);
      const counts = await Promise.all(
        [first, second].map(async (server) => {
          const line = await importLine(server);
          const [, imported, found] = /^tokens: imported (\d+) of (\d+) /.exec(line) ?? [];
          expect(found).toBe('4');
          return Number(imported);
        }),
      );
      expect(counts.reduce((sum, n) => sum + n, 0)).toBe(4);
      expect(await rows(database, 'SELECT count(*)::int AS n FROM auth_tokens')).toEqual([
        { n: 4 },
      ]);
      for (const server of [first, second]) {
        expect((await request(server, '/api/me', { token: minted.agent })).status).toBe(200);
      }

      // Changed in the database since: Olga revoked, the agent's token renamed.
      const ids = Object.fromEntries((await listed(first)).map((token) => [token.name, token.id]));
      expect((await request(first, `/api/tokens/${ids.Olga}`, { method: 'DELETE' })).status).toBe(
        204,
      );
      const renamed = await request(first, `/api/tokens/${ids['agent:a1']}`, {
        method: 'PATCH',
        body: { name: 'agent one' },
      });
      expect(renamed.status).toBe(200);
      const third = await start(dataDirWithCopy('replica-3'), database.url);
      expect(await importLine(third)).toBe(
        `tokens: imported 0 of 4 from ${join(root, 'replica-3', 'tokens.json')} into the database (it had the other 4); the file is now tokens.json.imported`,
      );
      for (const server of [first, third]) {
        expect(await request(server, '/api/me', { token: minted.operator })).toEqual({
          status: 401,
          body: REVOKED_BODY,
        });
        expect(await request(server, '/api/me', { token: minted.agent })).toMatchObject({
          status: 200,
          body: { name: 'agent one' },
        });
      }
    },
    4 * START_MS,
  );

  it(
    'a tokens.json that is not valid JSON, or cannot be read, stops the start naming it, and nothing is lost',
    async () => {
      const database = await newDatabase();
      const corrupt = join(root, 'corrupt');
      mkdirSync(corrupt);
      const text = original.slice(0, original.length / 2);
      writeFileSync(join(corrupt, 'tokens.json'), text, { mode: 0o600 });
      const unreadable = join(root, 'unreadable');
      mkdirSync(join(unreadable, 'tokens.json'), { recursive: true });
      const env = cleanEnv({ JUMPSEAT_TOKEN: ADMIN, JUMPSEAT_DATABASE_URL: database.url });
      const run = (dataDir: string) =>
        jumpseat(['serve', '--port', '0', '--data-dir', dataDir, '--sandbox', 'off'], env);

      const [fromCorrupt, fromUnreadable] = await Promise.all([run(corrupt), run(unreadable)]);
      expect(fromCorrupt).toMatchObject({
        status: 2,
        stderr: `jumpseat: tokens file "${join(corrupt, 'tokens.json')}" is not valid JSON; fix or delete it\n`,
      });
      expect(fromUnreadable).toMatchObject({
        status: 2,
        stderr: `jumpseat: tokens file "${join(unreadable, 'tokens.json')}" cannot be read (EISDIR)\n`,
      });
      expect(readFileSync(join(corrupt, 'tokens.json'), 'utf8')).toBe(text);
      expect(existsSync(join(corrupt, 'tokens.json.imported'))).toBe(false);
      expect(await rows(database, 'SELECT count(*)::int AS n FROM auth_tokens')).toEqual([
        { n: 0 },
      ]);
    },
    2 * START_MS,
  );
});
