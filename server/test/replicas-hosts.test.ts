/**
 * Hosts' drains and forgets shared by the replicas (issue 24): two `jumpseat serve
 * --local-shells off --database …` replicas, each a process of its own, on one PostgreSQL
 * database of the test's own (reached through a relay the test can cut), host h1 linked to A
 * and h2 to B. A drain on one replica stops placement there on the other within 1 s and both
 * list the host `draining`; an undrain on the other lifts it on both; a drain survives a
 * restart of both replicas and the host's re-join; while PostgreSQL is away a drain answers
 * 503 DATABASE_UNAVAILABLE and changes nothing anywhere; a forget on one replica is a forget on
 * both, and takes the drain with it. Each replica's /metrics counts only the hosts it holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseCut } from './support/database-cut.ts';
import { type HostCluster, PROCESS_START_MS, stopProcess } from './support/host-cluster.ts';
import { HAS_TEST_DATABASE, ReplicaSet } from './support/replica-set.ts';
import { hostOf } from './support/session-info.ts';

/** The bound: a drain on one replica holds on every other within this (ms). */
const SHARED_WITHIN_MS = 1000;
const POLL_MS = 25;

const replicas = new ReplicaSet(2);
const [a, b] = [replicas.at(0), replicas.at(1)];
let cut: DatabaseCut | undefined;
let env: NodeJS.ProcessEnv = {};
/** h2's host token, kept: the same host starts again after it was forgotten. */
let h2Token = '';

const both = (): readonly HostCluster[] => replicas.replicas;

/** How long (ms) until `cluster` lists `host` in `state`; throws past `withinMs`. */
async function msUntilState(
  cluster: HostCluster,
  host: string,
  state: string | undefined,
  withinMs: number,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    const seen = await cluster.hostState(host);
    if (seen === state) return Date.now() - started;
    if (Date.now() - started > withinMs) {
      throw new Error(`${host} is ${seen} on ${cluster.origin} after ${withinMs} ms, not ${state}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function hostAction(
  cluster: HostCluster,
  path: string,
  method: 'POST' | 'DELETE',
): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const response = await cluster.request(path, { method });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

async function health(cluster: HostCluster): Promise<string> {
  return ((await (await fetch(`${cluster.origin}/healthz`)).json()) as { database: string })
    .database;
}

async function startReplicas(): Promise<void> {
  await Promise.all([a.startControlPlane([], env), b.startControlPlane([], env)]);
}

describe.runIf(HAS_TEST_DATABASE)('hosts drained and forgotten across replicas', () => {
  beforeAll(async () => {
    const opened = await replicas.open();
    cut = replicas.keep(await DatabaseCut.open(opened.database.url));
    env = { ...opened.env, JUMPSEAT_DATABASE_URL: cut.relayedUrl };
    await startReplicas();
    await a.startHost('h1');
    h2Token = await b.mint({ role: 'host', name: 'h2' });
    await b.startHost('h2', [], h2Token);
    await replicas.hostsConnected(['h1', 'h2']);
  }, 4 * PROCESS_START_MS);

  afterAll(() => replicas.close(), 90_000);

  it('a drain on A stops placement on that host on B within 1 s, and both list it draining', async () => {
    // Equal loads: placement would take h1 first (by name) were it not drained.
    const drained = await hostAction(a, '/api/hosts/h1/drain', 'POST');
    expect(drained).toMatchObject({ status: 200, body: { name: 'h1', state: 'draining' } });
    expect(await msUntilState(b, 'h1', 'draining', SHARED_WITHIN_MS)).toBeLessThan(
      SHARED_WITHIN_MS,
    );
    expect(await b.call('placed-on-b', 'echo b')).toEqual({ status: 200, output: 'b' });
    expect(await hostOf(b, 'placed-on-b')).toBe('h2');
    expect(await a.call('placed-on-a', 'echo a')).toEqual({ status: 200, output: 'a' });
    expect(await hostOf(a, 'placed-on-a')).toBe('h2');
    expect(await a.hostState('h1')).toBe('draining');
  });

  it('an undrain on B (DELETE …/drain) lifts it on A too, and A places there again', async () => {
    const undrained = await hostAction(b, '/api/hosts/h1/drain', 'DELETE');
    expect(undrained).toMatchObject({ status: 200, body: { name: 'h1', state: 'connected' } });
    await msUntilState(a, 'h1', 'connected', SHARED_WITHIN_MS);
    // h2 runs two shells, h1 none: the least loaded is h1.
    expect(await a.call('after-undrain', 'echo back')).toEqual({ status: 200, output: 'back' });
    expect(await hostOf(a, 'after-undrain')).toBe('h1');
  });

  it('while PostgreSQL is away a drain answers 503 DATABASE_UNAVAILABLE and changes nothing', async () => {
    await cut?.cut();
    try {
      await a.waitFor(async () => (await health(a)) === 'unavailable', 'A to notice', 15_000);
      const refused = await hostAction(a, '/api/hosts/h2/drain', 'POST');
      expect(refused.status).toBe(503);
      expect((refused.body as { error: { code: string } }).error.code).toBe('DATABASE_UNAVAILABLE');
      const undrain = await hostAction(a, '/api/hosts/h2/drain', 'DELETE');
      expect(undrain.status).toBe(503);
      for (const cluster of both()) expect(await cluster.hostState('h2')).toBe('connected');
    } finally {
      await cut?.restore();
    }
    for (const cluster of both()) {
      await cluster.waitFor(async () => (await health(cluster)) === 'ok', 'database back', 20_000);
      expect(await cluster.hostState('h2')).toBe('connected');
    }
  }, 60_000);

  it(
    'a drain survives a restart of both replicas and the host re-joining',
    async () => {
      // The listener of B may still be coming back from the cut: the drain is read at start.
      expect(await hostAction(b, '/api/hosts/h1/drain', 'POST')).toMatchObject({ status: 200 });
      await Promise.all(both().map((cluster) => stopProcess(cluster.controlPlane?.process)));
      await startReplicas();
      for (const cluster of both()) {
        await cluster.waitFor(
          async () =>
            (await cluster.hostState('h1')) === 'draining' &&
            (await cluster.hostState('h2')) === 'connected',
          `h1 draining and h2 back on ${cluster.origin}`,
          60_000,
          () => JSON.stringify([a.controlPlane?.stderr(), b.controlPlane?.stderr()]),
        );
      }
      expect(await b.call('after-restart', 'echo restarted')).toEqual({
        status: 200,
        output: 'restarted',
      });
      expect(await hostOf(b, 'after-restart')).toBe('h2');
    },
    3 * PROCESS_START_MS,
  );

  it(
    'a forget on A forgets the host on B within 1 s, and its drain with it',
    async () => {
      expect(await hostAction(b, '/api/hosts/h1/drain', 'DELETE')).toMatchObject({ status: 200 });
      expect(await hostAction(b, '/api/hosts/h2/drain', 'POST')).toMatchObject({ status: 200 });
      await msUntilState(a, 'h2', 'draining', SHARED_WITHIN_MS);
      const h2 = b.hosts.find((host) => host.name === 'h2');
      await stopProcess(h2?.process);
      for (const cluster of both()) await msUntilState(cluster, 'h2', 'unreachable', 15_000);
      expect(await hostAction(a, '/api/hosts/h2', 'DELETE')).toEqual({ status: 204, body: null });
      expect(await msUntilState(b, 'h2', undefined, SHARED_WITHIN_MS)).toBeLessThan(
        SHARED_WITHIN_MS,
      );
      // The same host joins again as a new one: not drained.
      await b.startHost('h2', [], h2Token);
      await msUntilState(a, 'h2', 'connected', 30_000);
      expect(await b.hostState('h2')).toBe('connected');
    },
    2 * PROCESS_START_MS,
  );

  it('/metrics counts a host and its shells only on the replica holding its link', async () => {
    expect(await a.call('counted', 'echo counted')).toEqual({ status: 200, output: 'counted' });
    const held = { a: 'h1', b: 'h2' } as const;
    for (const [cluster, name] of [
      [a, held.a],
      [b, held.b],
    ] as const) {
      const metrics = await (await cluster.request('/metrics')).text();
      expect(metrics).toContain('jumpseat_hosts{state="connected"} 1');
      const shells = [...metrics.matchAll(/^jumpseat_host_shells\{host="([^"]+)"\} (\d+)$/gm)];
      expect(shells.map((match) => match[1])).toEqual([name]);
    }
    // Each host's live shells, as every replica lists them, are counted once: on its holder.
    const live = (await a.sessions()).filter((s) => s.state !== 'exited');
    for (const [cluster, name] of [
      [a, held.a],
      [b, held.b],
    ] as const) {
      const count = live.filter((s) => s.host === name).length;
      expect(await (await cluster.request('/metrics')).text()).toContain(
        `jumpseat_host_shells{host="${name}"} ${count}`,
      );
    }
  });
});
