import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallInfo, SessionInfo } from '../../../shared/src/api.ts';
import { openTestDatabase } from '../../test/support/http-server.ts';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../../test/support/test-database.ts';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import type { HistoryStore, WriteBatch } from './history-store.ts';
import { PostgresHistoryStore } from './postgres-history-store.ts';
import { SqliteHistoryStore } from './sqlite-history-store.ts';

interface Engine {
  readonly name: string;
  open(): Promise<HistoryStore>;
  /** A second process on the same rows (a restart, or another replica). */
  another(): Promise<HistoryStore>;
  done(): Promise<void>;
}

function sqlite(): Engine {
  let root = '';
  const stores: HistoryStore[] = [];
  const open = async () => {
    const store = new SqliteHistoryStore(join(root, 'history.db'));
    stores.push(store);
    return store;
  };
  return {
    name: 'sqlite',
    async open() {
      root = mkdtempSync(join(tmpdir(), 'jumpseat-history-store-'));
      return open();
    },
    another: open,
    async done() {
      for (const store of stores.splice(0)) await store.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function postgres(): Engine {
  let database: TestDatabase | undefined;
  const pools: PostgresDatabase[] = [];
  const stores: HistoryStore[] = [];
  const another = async () => {
    const pool = await openTestDatabase(database?.url ?? '');
    pools.push(pool);
    const store = new PostgresHistoryStore(pool);
    stores.push(store);
    return store;
  };
  return {
    name: 'postgres',
    async open() {
      database = await createTestDatabase();
      return another();
    },
    another,
    async done() {
      for (const store of stores.splice(0)) await store.close();
      for (const pool of pools.splice(0)) await pool.close();
      await database?.drop();
    },
  };
}

const ENGINES = TEST_DATABASE_URL === '' ? [sqlite()] : [sqlite(), postgres()];

function shell(id: string, startedAt: string, ended: string | null = null): SessionInfo {
  return {
    id,
    agent: 'a1',
    owner: null,
    dialect: 'bash',
    state: ended === null ? 'idle' : 'exited',
    command: null,
    since: null,
    lastExitCode: 0,
    pid: 42,
    cols: 120,
    rows: 40,
    controller: null,
    viewers: 0,
    startedAt,
    endedAt: ended,
    ending: ended === null ? null : { kind: 'exited', exitCode: 0, signal: null },
  };
}

function call(id: string, sessionId: string, startedAt: string): CallInfo {
  return {
    id,
    sessionId,
    command: `echo ${id}`,
    output: `${id}\n[exit code: 1]`,
    exitCode: 1,
    outcome: 'completed',
    startedAt,
    durationMs: 12.5,
    controller: 'Olive',
    controllerTokenId: 'tok1',
  };
}

const EMPTY: WriteBatch = { shells: [], calls: [], controls: [], audits: [] };

describe.each(ENGINES)('history store on $name', (engine) => {
  let store: HistoryStore;
  beforeEach(async () => {
    store = await engine.open();
    await store.start();
  });
  afterEach(() => engine.done());

  it('writes a batch and reads shells, calls and control events back as the API shows them', async () => {
    const seen = '2026-01-01T00:00:05.000Z';
    await store.write({
      shells: [
        { info: shell('s1', '2026-01-01T00:00:00.000Z'), seenAt: seen },
        { info: shell('s2', '2026-01-01T00:01:00.000Z', '2026-01-01T00:02:00.000Z'), seenAt: seen },
      ],
      calls: [
        call('c1', 's1', '2026-01-01T00:00:01.000Z'),
        call('c2', 's1', '2026-01-01T00:00:02.000Z'),
      ],
      controls: [
        {
          sessionId: 's1',
          event: { at: seen, kind: 'take', name: 'Olive', tokenId: 'tok1', keysRecorded: true },
        },
        {
          sessionId: 's1',
          event: { at: seen, kind: 'release', name: 'Olive', tokenId: null, keysRecorded: false },
        },
      ],
      audits: [],
    });
    expect((await store.shells()).map((s) => [s.id, s.state, s.endedAt, s.pid])).toEqual([
      ['s2', 'ended', '2026-01-01T00:02:00.000Z', null],
      ['s1', 'ended', null, null],
    ]);
    expect(await store.shell('s2')).toMatchObject({
      ending: { kind: 'exited', exitCode: 0, signal: null },
      cols: 120,
      lastExitCode: 0,
    });
    expect(await store.shell('nope')).toBeUndefined();
    expect(await store.calls('s1')).toEqual([
      call('c1', 's1', '2026-01-01T00:00:01.000Z'),
      call('c2', 's1', '2026-01-01T00:00:02.000Z'),
    ]);
    expect(
      (await store.controlEvents('s1')).map((e) => [e.kind, e.tokenId, e.keysRecorded]),
    ).toEqual([
      ['take', 'tok1', true],
      ['release', null, false],
    ]);
  });

  it('adds a later count to a refusal row of the same bucket, even twice in one batch', async () => {
    const refused = {
      kind: 'refused' as const,
      address: '10.0.0.9',
      status: 401 as const,
      tokenId: null,
      name: null,
      reason: 'bad token',
      method: 'GET',
      url: '/api/sessions',
    };
    const row = (count: number, lastAt: string) => ({
      at: '2026-01-01T00:00:00.000Z',
      event: refused,
      count,
      lastAt,
      bucket: '401 10.0.0.9 2026-01-01T00:00:00.000Z',
    });
    await store.write({
      ...EMPTY,
      audits: [row(3, '2026-01-01T00:00:01.000Z'), row(2, '2026-01-01T00:00:02.000Z')],
    });
    await store.write({ ...EMPTY, audits: [row(5, '2026-01-01T00:00:03.000Z')] });
    const events = await store.auditEvents({ limit: 10 });
    expect(events.map((e) => [e.kind, e.count, e.lastAt, e.address])).toEqual([
      ['refused', 10, '2026-01-01T00:00:03.000Z', '10.0.0.9'],
    ]);
  });

  it('filters the audit and keeps it to its cap, refusals and first uses going first', async () => {
    const named = (i: number) => ({
      at: `2026-01-01T00:00:0${i}.000Z`,
      event: { kind: 'named' as const, tokenId: `t${i}`, name: `n${i}` },
    });
    const address = (i: number) => ({
      at: `2026-01-01T00:00:0${i}.000Z`,
      event: { kind: 'new_address' as const, tokenId: `t${i}`, name: `n${i}`, address: 'x' },
    });
    await store.write({ ...EMPTY, audits: [named(1), address(2), named(3), address(4)] });
    const byToken = await store.auditEvents({ limit: 10, tokenId: 't3' });
    expect(byToken.map((e) => e.name)).toEqual(['n3']);
    const since = await store.auditEvents({ limit: 10, since: '2026-01-01T00:00:03.000Z' });
    expect(since.map((e) => e.name)).toEqual(['n4', 'n3']);
    const kinds = await store.auditEvents({ limit: 10, kinds: ['named'] });
    expect(kinds.map((e) => e.name)).toEqual(['n3', 'n1']);
    const [newest] = await store.auditEvents({ limit: 1 });
    const page = await store.auditEvents({ limit: 10, before: newest?.id ?? 0 });
    expect(page.map((e) => e.name)).toEqual(['n3', 'n2', 'n1']);
    expect(await store.capAudit(3)).toBe(1);
    expect((await store.auditEvents({ limit: 10 })).map((e) => e.name)).toEqual(['n4', 'n3', 'n1']);
  });

  it('forgets shells that ended before the cutoff, with their calls, and older auth events', async () => {
    const seen = '2026-01-01T00:00:05.000Z';
    await store.write({
      shells: [
        {
          info: shell('old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z'),
          seenAt: seen,
        },
        { info: shell('live', '2026-01-01T00:00:00.000Z'), seenAt: seen },
      ],
      calls: [call('c1', 'old', '2026-01-01T00:00:00.500Z')],
      controls: [],
      audits: [
        { at: '2026-01-01T00:00:00.000Z', event: { kind: 'named', tokenId: 't', name: 'n' } },
      ],
    });
    expect(await store.forgetBefore('2026-06-01T00:00:00.000Z')).toBe(1);
    expect((await store.shells()).map((s) => s.id)).toEqual(['live']);
    expect(await store.calls('old')).toEqual([]);
    expect(await store.auditEvents({ limit: 10 })).toEqual([]);
  });

  it('writes a shell again with no ending when it comes back (a joined host that links again)', async () => {
    const info = shell('s1', '2026-01-01T00:00:00.000Z');
    await store.write({ ...EMPTY, shells: [{ info, seenAt: '2026-01-01T00:00:01.000Z' }] });
    await store.write({
      ...EMPTY,
      shells: [
        {
          info: {
            ...info,
            endedAt: '2026-01-01T00:00:02.000Z',
            ending: { kind: 'server_stopped', exitCode: null, signal: null },
          },
          seenAt: '2026-01-01T00:00:02.000Z',
        },
      ],
    });
    await store.write({ ...EMPTY, shells: [{ info, seenAt: '2026-01-01T00:00:03.000Z' }] });
    expect(await store.shell('s1')).toMatchObject({ endedAt: null, ending: null });
  });
});

describe.runIf(ENGINES.length > 1)('unfinished shells, one process or several replicas', () => {
  it('SQLite: a new start ends what the last run left unfinished, at its last write', async () => {
    const engine = sqlite();
    const first = await engine.open();
    await first.start();
    await first.write({
      ...EMPTY,
      shells: [
        { info: shell('s1', '2026-01-01T00:00:00.000Z'), seenAt: '2026-01-01T00:00:09.000Z' },
      ],
    });
    const second = await engine.another();
    await second.start();
    expect(await second.shell('s1')).toMatchObject({
      endedAt: '2026-01-01T00:00:09.000Z',
      ending: { kind: 'server_stopped', exitCode: null, signal: null },
    });
    await engine.done();
  });
});

describe.runIf(TEST_DATABASE_URL !== '')('unfinished shells of replicas on one PostgreSQL', () => {
  let database: TestDatabase;
  const pools: PostgresDatabase[] = [];
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.close();
    await database.drop();
  });

  async function replica(staleMs: number): Promise<PostgresHistoryStore> {
    const pool = await openTestDatabase(database.url);
    pools.push(pool);
    // Beats only when told (a long interval): the test decides who is alive.
    return new PostgresHistoryStore(pool, () => undefined, { heartbeatMs: 60_000, staleMs });
  }

  it("a replica starting leaves a live replica's shells alone, and ends them once it went silent", async () => {
    const a = await replica(1000);
    await a.start();
    await a.write({
      ...EMPTY,
      shells: [
        { info: shell('s1', '2026-01-01T00:00:00.000Z'), seenAt: '2026-01-01T00:00:09.000Z' },
      ],
    });
    const b = await replica(1000);
    await b.start();
    expect(await b.shell('s1')).toMatchObject({ endedAt: null, ending: null });
    await a.close();
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await b.start();
    expect(await b.shell('s1')).toMatchObject({
      endedAt: '2026-01-01T00:00:09.000Z',
      ending: { kind: 'server_stopped', exitCode: null, signal: null },
    });
    await b.close();
  });

  it("a shell another replica writes (its host linked there) becomes that replica's", async () => {
    const a = await replica(1000);
    await a.start();
    const info = shell('s1', '2026-01-01T00:00:00.000Z');
    await a.write({ ...EMPTY, shells: [{ info, seenAt: '2026-01-01T00:00:01.000Z' }] });
    await a.close();
    const b = await replica(1000);
    await b.start();
    await b.write({ ...EMPTY, shells: [{ info, seenAt: '2026-01-01T00:00:02.000Z' }] });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const c = await replica(1000);
    // b beats (alive), a is silent: the shell is b's now, so it stays unfinished.
    await b.start();
    await c.start();
    expect(await c.shell('s1')).toMatchObject({ endedAt: null, ending: null });
    await b.close();
    await c.close();
  });
});
