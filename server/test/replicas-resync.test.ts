/**
 * What a replica missed while its LISTEN connection was down (issue 24): replicas A and B, each
 * a `jumpseat serve --local-shells off --database …` process, on one database of the test's
 * own; B reaches it through a relay the test can cut (A directly), hosts h1 and h2 link to A.
 * Changes made on A while B cannot hear (a drain, a forget, a token revoked, a browser signed
 * out; an undrain and a revocation while only B's listener is ended) reach B once its listener
 * is back: B re-reads what it keeps from the database then, since NOTIFY does not wait for it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseCut } from './support/database-cut.ts';
import { type HostCluster, PROCESS_START_MS, stopProcess } from './support/host-cluster.ts';
import { HAS_TEST_DATABASE, ReplicaSet } from './support/replica-set.ts';
import { TEST_DATABASE_URL } from './support/test-database.ts';

/**
 * How long B may take to apply what it missed, from its database being reachable again. The
 * issue asks for about a second once the listener is back; the listener's own retry (up to
 * 5 s apart) and a loaded machine come on top. A bound for correctness, not a speed test.
 */
const APPLIED_WITHIN_MS = 15_000;
const POLL_MS = 50;

const replicas = new ReplicaSet(2);
const [a, b] = [replicas.at(0), replicas.at(1)];
let databaseName = '';
let cut: DatabaseCut | undefined;

async function health(cluster: HostCluster): Promise<string> {
  return ((await (await fetch(`${cluster.origin}/healthz`)).json()) as { database: string })
    .database;
}

async function status(
  cluster: HostCluster,
  path: string,
  init: RequestInit & { token?: string } = {},
) {
  return (await cluster.request(path, init)).status;
}

async function tokenId(cluster: HostCluster, name: string): Promise<string> {
  const listed = (await (await cluster.request('/api/tokens')).json()) as {
    id: string;
    name: string;
  }[];
  const id = listed.find((token) => token.name === name)?.id;
  if (id === undefined) throw new Error(`no token named ${name}`);
  return id;
}

/** An operator token minted on A, known on B; its id too. */
async function operator(name: string): Promise<{ token: string; id: string }> {
  const token = await a.mint({ role: 'operator', name });
  expect(await status(b, '/api/me', { token })).toBe(200);
  return { token, id: await tokenId(a, name) };
}

/** Polls until every check holds on B; the ms it took from `since`, printed with `what`. */
async function appliedOnB(
  what: string,
  since: number,
  checks: Record<string, () => Promise<boolean>>,
): Promise<void> {
  const pending = new Set(Object.keys(checks));
  for (;;) {
    for (const name of [...pending]) {
      if (await (checks[name] as () => Promise<boolean>)().catch(() => false)) pending.delete(name);
    }
    const tookMs = Date.now() - since;
    if (pending.size === 0) {
      process.stdout.write(`${what}: applied on B ${tookMs} ms after its database was back\n`);
      return;
    }
    if (tookMs > APPLIED_WITHIN_MS) {
      throw new Error(
        `${what}: not applied on B ${tookMs} ms after its database was back: ${[...pending].join(', ')}\n${b.controlPlane?.stderr() ?? ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** B's LISTEN backends (found by the relay's client ports), as the database's owner sees them. */
async function listenersOfB(): Promise<number[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
       WHERE datname = $1 AND application_name = 'jumpseat-listen' AND client_port = ANY($2)`,
      [databaseName, cut?.clientPorts() ?? []],
    );
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

async function terminate(pids: readonly number[]): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
  } finally {
    await client.end();
  }
}

describe.runIf(HAS_TEST_DATABASE)('changes B missed while it could not listen', () => {
  beforeAll(async () => {
    const { database, env } = await replicas.open();
    databaseName = database.name;
    cut = replicas.keep(await DatabaseCut.open(database.url));
    await Promise.all([
      a.startControlPlane([], env),
      b.startControlPlane([], { ...env, JUMPSEAT_DATABASE_URL: cut.relayedUrl }),
    ]);
    await a.startHost('h1');
    await a.startHost('h2');
    await replicas.hostsConnected(['h1', 'h2'], [b]);
  }, 4 * PROCESS_START_MS);

  afterAll(() => replicas.close(), 90_000);

  it(
    'a drain, a forget, a revocation and a sign-out made on A while B is cut off are applied on B once it is back',
    async () => {
      const revoked = await operator('Missed');
      const browser = await operator('Browser');
      const login = (await (
        await a.request('/api/login', { method: 'POST', token: browser.token })
      ).json()) as { credential: string };
      expect(await status(b, '/api/me', { token: login.credential })).toBe(200);
      // h2 stops: a host is forgotten only while it is not connected.
      await stopProcess(a.hosts.find((host) => host.name === 'h2')?.process);
      for (const cluster of [a, b]) {
        await cluster.waitFor(
          async () => (await cluster.hostState('h2')) === 'unreachable',
          `h2 unreachable on ${cluster.origin}`,
          30_000,
        );
      }

      await cut?.cut();
      try {
        await b.waitFor(async () => (await health(b)) === 'unavailable', 'B to notice', 15_000);
        expect(await status(a, '/api/hosts/h1/drain', { method: 'POST' })).toBe(200);
        expect(await status(a, '/api/hosts/h2', { method: 'DELETE' })).toBe(204);
        expect(await status(a, `/api/tokens/${revoked.id}`, { method: 'DELETE' })).toBe(204);
        expect(await status(a, '/api/login', { method: 'DELETE', token: login.credential })).toBe(
          204,
        );
        // Still as it was on B: it heard none of it.
        expect(await b.hostState('h1')).toBe('connected');
        expect(await b.hostState('h2')).toBe('unreachable');
        expect(await status(b, '/api/me', { token: revoked.token })).toBe(200);
      } finally {
        await cut?.restore();
      }
      await b.waitFor(async () => (await health(b)) === 'ok', 'B to see its database', 20_000);
      await appliedOnB('after a cut of every connection', Date.now(), {
        'h1 draining': async () => (await b.hostState('h1')) === 'draining',
        'h2 forgotten': async () => (await b.hostState('h2')) === undefined,
        'the token refused': async () =>
          (await status(b, '/api/me', { token: revoked.token })) === 401,
        'the browser signed out': async () =>
          (await status(b, '/api/me', { token: login.credential })) === 401,
      });
      // Nothing else went with them.
      expect(await status(b, '/api/me', { token: browser.token })).toBe(200);
    },
    3 * PROCESS_START_MS,
  );

  it(
    "an undrain and a revocation made on A while only B's LISTEN connection is ended are applied on B once it is back",
    async () => {
      const revoked = await operator('Missed too');
      expect(await b.hostState('h1')).toBe('draining');
      cut?.hold();
      let back = Date.now();
      try {
        const listeners = await listenersOfB();
        expect(listeners).toHaveLength(1);
        await terminate(listeners);
        // No way back through the relay while it holds: B's listener stays down.
        await b.waitFor(
          async () => (await listenersOfB()).length === 0,
          "B's listener to end",
          10_000,
        );
        expect(await status(a, '/api/hosts/h1/drain', { method: 'DELETE' })).toBe(200);
        expect(await status(a, `/api/tokens/${revoked.id}`, { method: 'DELETE' })).toBe(204);
        expect(await b.hostState('h1')).toBe('draining');
        expect(await status(b, '/api/me', { token: revoked.token })).toBe(200);
      } finally {
        await cut?.restore();
        back = Date.now();
      }
      await appliedOnB('after its listener alone was ended', back, {
        'h1 undrained': async () => (await b.hostState('h1')) === 'connected',
        'the token refused': async () =>
          (await status(b, '/api/me', { token: revoked.token })) === 401,
      });
      expect(await listenersOfB()).toHaveLength(1);
    },
    2 * PROCESS_START_MS,
  );
});
