/**
 * Placement shared by the replicas (issue 24): two `jumpseat serve --local-shells off
 * --database …` replicas, each a process of its own, host h1 linked to A and h2 to B. Where
 * an agent's shell was placed last is kept in PostgreSQL (host_placements), so a new shell of
 * the agent goes back there whichever replica places it, even where another host also holds
 * its workspace and would win on load or name. Two replicas placing the same agent's new
 * shell at once start one shell: one claim wins, the other replica follows it. A forgotten
 * host's placements go with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostCluster, PROCESS_START_MS, stopProcess } from './support/host-cluster.ts';
import { HAS_TEST_DATABASE, ReplicaSet } from './support/replica-set.ts';
import { hostOf, liveSession } from './support/session-info.ts';

/** An ended shell reaches every replica's list within this (ms): generous for a loaded machine. */
const ENDED_WITHIN_MS = 20_000;

const replicas = new ReplicaSet(2);
const [a, b] = [replicas.at(0), replicas.at(1)];
let databaseUrl = '';

const both = (): readonly HostCluster[] => replicas.replicas;

/** Ends the agent's shell (through `cluster`) and waits until no replica lists it live. */
async function endShell(cluster: HostCluster, agent: string): Promise<void> {
  expect(await cluster.call(agent, 'exit 0')).toMatchObject({ status: 200 });
  for (const each of both()) {
    await each.waitFor(
      async () => (await liveSession(each, agent)) === undefined,
      `${agent}'s shell to end on ${each.origin}`,
      ENDED_WITHIN_MS,
    );
  }
}

async function placementRows(agent: string): Promise<{ host: string; claim: string }[]> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT host, claim::text AS claim FROM host_placements WHERE agent = $1',
      [agent],
    );
    return rows as { host: string; claim: string }[];
  } finally {
    await client.end();
  }
}

describe.runIf(HAS_TEST_DATABASE)('placement shared by the replicas', () => {
  beforeAll(async () => {
    const { env } = await replicas.open();
    databaseUrl = env.JUMPSEAT_DATABASE_URL;
    await Promise.all([a.startControlPlane([], env), b.startControlPlane([], env)]);
    await a.startHost('h1');
    await b.startHost('h2');
    await replicas.hostsConnected(['h1', 'h2']);
  }, 3 * PROCESS_START_MS);

  afterAll(() => replicas.close(), 90_000);

  it(
    'a new shell goes back to the host of the agent’s last placement, on either replica',
    async () => {
      // Equal loads: h1 by name.
      expect(await a.call('returning', 'echo one')).toEqual({ status: 200, output: 'one' });
      expect(await hostOf(a, 'returning')).toBe('h1');
      await endShell(a, 'returning');
      // h1 drained, B places the next shell on h2: both hosts now hold the workspace.
      expect((await a.request('/api/hosts/h1/drain', { method: 'POST' })).status).toBe(200);
      await b.waitFor(async () => (await b.hostState('h1')) === 'draining', 'drain on B', 5000);
      expect(await b.call('returning', 'echo two')).toEqual({ status: 200, output: 'two' });
      expect(await hostOf(b, 'returning')).toBe('h2');
      await endShell(b, 'returning');
      expect((await b.request('/api/hosts/h1/drain', { method: 'DELETE' })).status).toBe(200);
      await a.waitFor(async () => (await a.hostState('h1')) === 'connected', 'undrain', 5000);
      // Equal loads again, and both hold the workspace: only the kept placement says h2.
      expect(await a.call('returning', 'echo three')).toEqual({ status: 200, output: 'three' });
      expect(await hostOf(a, 'returning')).toBe('h2');
      expect(await placementRows('returning')).toEqual([{ host: 'h2', claim: '3' }]);
      await endShell(a, 'returning');
    },
    2 * PROCESS_START_MS,
  );

  it('two replicas placing the same agent’s new shell at once start one shell', async () => {
    const [onA, onB] = await Promise.all([
      a.call('twin', 'echo "$$"'),
      b.call('twin', 'echo "$$"'),
    ]);
    expect(onA.status).toBe(200);
    expect(onB.status).toBe(200);
    // One shell: the same shell process answered both.
    expect(onA.output).toBe(onB.output);
    for (const cluster of both()) {
      const listed = (await cluster.sessions()).filter(
        (s) => s.agent === 'twin' && s.state !== 'exited',
      );
      expect(listed).toHaveLength(1);
    }
    // One row, naming the host that holds the shell. Its claim is 1 when the two placements
    // raced (the loser followed the winner), 2 when B read the row after A's claim: B then
    // placed again, on the host A chose (the agent's last), which had the shell already.
    const rows = await placementRows('twin');
    expect(rows.map((row) => row.host)).toEqual([await hostOf(a, 'twin')]);
    expect(['1', '2']).toContain(rows[0]?.claim);
  });

  it(
    'a forgotten host’s placements go with it',
    async () => {
      const h2 = b.hosts.find((host) => host.name === 'h2');
      expect(await placementRows('returning')).toEqual([{ host: 'h2', claim: '3' }]);
      await stopProcess(h2?.process);
      for (const cluster of both()) {
        await cluster.waitFor(
          async () => (await cluster.hostState('h2')) === 'unreachable',
          `h2 unreachable on ${cluster.origin}`,
          20_000,
        );
      }
      expect((await a.request('/api/hosts/h2', { method: 'DELETE' })).status).toBe(204);
      expect(await placementRows('returning')).toEqual([]);
    },
    PROCESS_START_MS,
  );
});
