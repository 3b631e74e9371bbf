import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../../test/support/test-database.ts';
import { ConfigError } from '../config/config-error.ts';
import { type DatabaseUrl, readDatabaseUrl } from '../database/database-url.ts';
import { PostgresDatabase } from '../database/postgres-database.ts';
import { migratePostgres } from '../database/postgres-migrations.ts';
import { POSTGRES_MIGRATIONS } from '../database/schema.ts';
import { JumpseatError } from '../errors.ts';
import { TokenStore } from './token-store.ts';

// Counts comparisons while keeping the real implementation: the store must compare against
// every known hash, whichever one matches.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});
const { timingSafeEqual } = await import('node:crypto');

const ADMIN = 'admin-secret-token';
let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'jumpseat-tokens-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** One way of keeping tokens; every test in the table below runs on each. */
interface Engine {
  readonly name: string;
  readonly runs: boolean;
  /** A store over what this engine keeps (a second call: as after a restart, or another replica). */
  open(adminToken: string): Promise<TokenStore>;
  /** Whether the engine still keeps the record of this token id. */
  keeps(tokenId: string): Promise<boolean>;
}

let scratch: TestDatabase | undefined;
let database: PostgresDatabase | undefined;
const opened: TokenStore[] = [];

const engines: Engine[] = [
  {
    name: 'file',
    runs: true,
    open: async (adminToken) => TokenStore.open(dataDir, adminToken),
    keeps: async (tokenId) => readFileSync(join(dataDir, 'tokens.json'), 'utf8').includes(tokenId),
  },
  {
    name: 'postgres',
    runs: TEST_DATABASE_URL !== '',
    open: async (adminToken) => {
      const store = await TokenStore.openShared(database as PostgresDatabase, adminToken);
      opened.push(store);
      return store;
    },
    keeps: async (tokenId) =>
      ((
        await (database as PostgresDatabase).query('SELECT 1 FROM auth_tokens WHERE id = $1', [
          tokenId,
        ])
      ).rowCount ?? 0) > 0,
  },
];

beforeAll(async () => {
  if (TEST_DATABASE_URL === '') return;
  scratch = await createTestDatabase();
  const url = readDatabaseUrl({ raw: scratch.url, source: '--database' });
  database = new PostgresDatabase(url as DatabaseUrl);
  await migratePostgres(database, POSTGRES_MIGRATIONS);
});
afterAll(async () => {
  await database?.close();
  await scratch?.drop();
});
beforeEach(async () => {
  await database?.query('TRUNCATE auth_tokens');
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.flush();
});

describe.each(engines.filter((engine) => engine.runs))('$name engine', (engine) => {
  describe('verify', () => {
    it('knows the admin token from configuration', async () => {
      const store = await engine.open(ADMIN);
      expect(store.verify(ADMIN)).toEqual({ role: 'admin', name: 'admin', tokenId: 'admin' });
    });

    it.each([
      ['a wrong token', 'admin-secret-tokeN'],
      ['a prefix of the token', 'admin-secret'],
      ['an empty string', ''],
      ['a token with a space', 'admin secret'],
      ['a non-ASCII token', 'admin-secret-tokén'],
      ['an oversized token', 'x'.repeat(5000)],
    ])('refuses %s', async (_what, presented) => {
      expect((await engine.open(ADMIN)).verify(presented)).toBeUndefined();
    });

    it('compares against every known hash whichever token is presented', async () => {
      const store = await engine.open(ADMIN);
      const minted: string[] = [];
      for (const agent of ['a1', 'a2', 'a3'])
        minted.push((await store.mint({ role: 'agent', agent })).token);
      for (const presented of [ADMIN, minted[0] ?? '', minted[2] ?? '', 'js_unknown']) {
        vi.mocked(timingSafeEqual).mockClear();
        store.verify(presented);
        expect(vi.mocked(timingSafeEqual)).toHaveBeenCalledTimes(4);
      }
    });
  });

  describe('mint', () => {
    it('returns a js_ token of 32 random bytes for the role', async () => {
      const store = await engine.open(ADMIN);
      const { token, principal } = await store.mint({ role: 'agent', agent: 'a1' });
      expect(token).toMatch(/^js_[A-Za-z0-9_-]{43}$/);
      expect(principal).toMatchObject({ role: 'agent', agent: 'a1', name: 'agent:a1' });
      expect(store.verify(token)).toEqual(principal);
    });

    it('names tokens by role unless a name is given', async () => {
      const store = await engine.open(ADMIN);
      expect((await store.mint({ role: 'viewer' })).principal.name).toBe('viewer');
      expect((await store.mint({ role: 'operator', name: 'Ana' })).principal.name).toBe('Ana');
    });

    it('mints different tokens every time', async () => {
      const store = await engine.open(ADMIN);
      const tokens = new Set<string>();
      for (let i = 0; i < 20; i += 1) tokens.add((await store.mint({ role: 'viewer' })).token);
      expect(tokens.size).toBe(20);
    });

    it('requires an agent id for role agent', async () => {
      const store = await engine.open(ADMIN);
      await expect(store.mint({ role: 'agent' })).rejects.toThrow(
        new JumpseatError(
          { code: 'BAD_REQUEST', status: 400 },
          'role "agent" requires "agent" (the agent id)',
        ),
      );
    });

    it('refuses an agent id for the other roles', async () => {
      const store = await engine.open(ADMIN);
      await expect(store.mint({ role: 'operator', agent: 'a1' })).rejects.toThrow(
        '"agent" is only allowed with role "agent", not "operator"',
      );
    });
  });

  describe('share links', () => {
    const grant = { sessionId: 's-1', role: 'viewer', by: 'Olive' } as const;

    it('reach one shell, unnamed until their holder gives a name', async () => {
      const store = await engine.open(ADMIN);
      const { token, share } = await store.mintShare(grant);
      expect(share).toMatchObject({
        sessionId: 's-1',
        role: 'viewer',
        name: null,
        createdBy: 'Olive',
        expiresAt: null,
      });
      expect(store.verify(token)).toEqual({
        role: 'viewer',
        name: 'guest',
        tokenId: share.id,
        scope: 's-1',
        unnamed: true,
      });
      const renamed = await store.rename(share.id, 'Vera');
      expect(renamed).toEqual({ role: 'viewer', name: 'Vera', tokenId: share.id, scope: 's-1' });
      // Names are saved lazily on the file (a burst of renames is one write); flush is what
      // closing does.
      await store.flush();
      expect((await engine.open(ADMIN)).verify(token)).toEqual(renamed);
      expect(store.shares('s-1')).toEqual([{ ...share, name: 'Vera' }]);
      expect(store.shares('s-2')).toEqual([]);
    });

    it('keeps a name given right after the link was made (never undone by an older read)', async () => {
      // With a database, the link's creation is announced, and the row read again, while
      // the rename commits: a read made before the rename must not land after it.
      const store = await engine.open(ADMIN);
      for (let round = 0; round < 40; round++) {
        const { share } = await store.mintShare({ ...grant, sessionId: `s-race-${round}` });
        await store.rename(share.id, `Name ${round}`);
        await new Promise((resolve) => setTimeout(resolve, round % 4));
        expect(store.shares(`s-race-${round}`).map((link) => link.name)).toEqual([`Name ${round}`]);
      }
    });

    it('stop working when they expire, and are dropped from the list', async () => {
      vi.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z'), toFake: ['Date'] });
      try {
        const store = await engine.open(ADMIN);
        const { token, share } = await store.mintShare({ ...grant, expiresInSeconds: 60 });
        expect(share.expiresAt).toBe('2026-01-01T00:01:00.000Z');
        expect(store.verify(token)?.expiresAt).toBe(Date.parse('2026-01-01T00:01:00Z'));
        vi.setSystemTime(Date.parse('2026-01-01T00:00:59Z'));
        expect(store.verify(token)).toBeDefined();
        vi.setSystemTime(Date.parse('2026-01-01T00:01:00Z'));
        expect(store.verify(token)).toBeUndefined();
        expect(store.endedLink(token)).toBe('expired');
        expect(store.shares('s-1')).toEqual([]);
        // Kept a month, to tell its holder what happened; then dropped as new links are made.
        await store.mintShare(grant);
        expect(await engine.keeps(share.id)).toBe(true);
        vi.setSystemTime(Date.parse('2026-01-31T00:01:00Z'));
        await store.mintShare(grant);
        expect(await engine.keeps(share.id)).toBe(false);
        expect(store.endedLink(token)).toBeUndefined();
      } finally {
        vi.useRealTimers();
      }
    });

    it('are revoked for good, and reported', async () => {
      const store = await engine.open(ADMIN);
      const events: string[] = [];
      store.onAuthEvent.on((event) =>
        events.push(`${event.kind}:${'by' in event ? event.by : ''}`),
      );
      const { token, share } = await store.mintShare(grant);
      await expect(store.revokeShare('s-2', share.id, 'Olive')).rejects.toThrow(
        `no share link "${share.id}" on this shell`,
      );
      await store.revokeShare('s-1', share.id, 'Olive');
      expect(store.verify(token)).toBeUndefined();
      expect(store.endedLink(token)).toBe('revoked');
      expect(store.shares('s-1')).toEqual([]);
      const restarted = await engine.open(ADMIN);
      expect(restarted.verify(token)).toBeUndefined();
      expect(restarted.endedLink(token)).toBe('revoked');
      await expect(store.revokeShare('s-1', share.id, 'Olive')).rejects.toThrow('no share link');
      expect(events).toEqual(['minted:Olive', 'revoked:Olive']);
    });

    it("keeps the admin's name fixed", async () => {
      await expect((await engine.open(ADMIN)).rename('admin', 'Boss')).rejects.toThrow(
        "the admin token's name is fixed; mint a token with a name instead",
      );
    });
  });
});

describe('the file engine', () => {
  it('keeps minted tokens across restarts as SHA-256 hashes only, mode 600', async () => {
    const first = TokenStore.open(dataDir, ADMIN);
    const { token, principal } = await first.mint({ role: 'agent', agent: 'a1', name: 'ci' });
    const file = join(dataDir, 'tokens.json');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(3));
    expect(text).toContain(sha256Hex(token));
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = TokenStore.open(dataDir, ADMIN);
    expect(second.verify(token)).toEqual(principal);
  });

  it('takes the admin token from configuration only, never from the file', async () => {
    await TokenStore.open(dataDir, ADMIN).mint({ role: 'viewer' });
    const restarted = TokenStore.open(dataDir, 'a-new-admin-token');
    expect(restarted.verify(ADMIN)).toBeUndefined();
    expect(restarted.verify('a-new-admin-token')?.role).toBe('admin');
  });

  it('refuses a tokens file that is not JSON', async () => {
    writeFileSync(join(dataDir, 'tokens.json'), '{oops');
    expect(() => TokenStore.open(dataDir, ADMIN)).toThrow(ConfigError);
    expect(() => TokenStore.open(dataDir, ADMIN)).toThrow(
      `tokens file "${join(dataDir, 'tokens.json')}" is not valid JSON; fix or delete it`,
    );
  });

  it('refuses a tokens file whose agent token lost its agent', async () => {
    const record = {
      id: 'x',
      sha256: sha256Hex('t'),
      role: 'agent',
      name: 'n',
      createdAt: '2025-01-01T00:00:00.000Z',
    };
    writeFileSync(join(dataDir, 'tokens.json'), JSON.stringify({ version: 1, tokens: [record] }));
    expect(() => TokenStore.open(dataDir, ADMIN)).toThrow('token x has a role/agent mismatch');
  });
});

describe.runIf(TEST_DATABASE_URL !== '')('replicas sharing one database', () => {
  const shared = engines[1] as Engine;

  it('hear each other: a mint works on the other at once, a revocation is said there once', async () => {
    const [a, b] = [await shared.open(ADMIN), await shared.open(ADMIN)];
    const revoked: string[] = [];
    b.onRevoke.on((event) => revoked.push(`${event.tokenId}:${event.by}`));
    const { token, principal } = await a.mint({ role: 'viewer', name: 'Rita' });
    // Before its notification arrives, B looks it up.
    expect(await b.checkFresh(token)).toEqual({ principal });
    await a.revoke(principal.tokenId, 'Boss');
    await vi.waitFor(() => expect(revoked).toEqual([`${principal.tokenId}:Boss`]), 2000);
    expect(b.check(token)).toEqual({ ended: 'token_revoked' });
    await vi.waitFor(() => expect(b.list()[0]?.revokedAt).not.toBeNull(), 2000);
  });

  it('a token revoked on two replicas at once is revoked once; the second is told so', async () => {
    const [a, b] = [await shared.open(ADMIN), await shared.open(ADMIN)];
    const { principal } = await a.mint({ role: 'operator', name: 'Twice' });
    await vi.waitFor(() => expect(b.checkId(principal.tokenId)).toBeDefined(), 2000);
    const results = await Promise.allSettled([
      a.revoke(principal.tokenId, 'A'),
      b.revoke(principal.tokenId, 'B'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason)).toContain(`token "${principal.tokenId}" was already revoked`);
  });
});
