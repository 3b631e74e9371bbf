/**
 * Replicas (issue 24.5): control planes (`--local-shells off`) on one PostgreSQL database made
 * for the run. First one replica A alone, with HOSTS hosts linked to it: AGENTS agents' calls
 * per second through it. Then replica B beside it: a `bash("true")` call made on B (relayed
 * B → A → host) against the same call made on A directly, alternated so both see the same
 * machine (the extra, against 1 ms). Last, the hosts replaced by as many new ones split across
 * A and B, and as many new agents, each calling through one of the two as a balancer would
 * send it (pairs of agents per replica, so about half the calls are relayed): the one-replica
 * rate over the two-replica rate, against 1.2 (within 20 %). Skipped, saying why, without a
 * PostgreSQL to make a database on (JUMPSEAT_TEST_DATABASE_URL, as for the tests).
 */
import { createTestDatabase, type TestDatabase } from '../test/support/test-database.ts';
import {
  call,
  median,
  report,
  type Server,
  sleep,
  startServer,
  stopServer,
} from './bench-server.ts';
import { type HostChild, startHost, stopHost } from './hosts-bench.ts';
import { callRate, type RoutedAgent, relayedAgents, startShells } from './replicas-throughput.ts';

const CALLS = 200;
const EXTRA_MS_TARGET = 1;
/** Agents calling at once, and hosts (shells up to AGENTS each), in both rate measurements. */
const AGENTS = 16;
const HOSTS = 2;
/** The issue's bound: two replicas' rate at most 20 % under one replica's. */
const RATE_RATIO_TARGET = 1.2;
/** Longest wait for replica B to reach the host through A (ms). */
const RELAY_DEADLINE_MS = 30_000;

async function hostStateOn(server: Server, name: string): Promise<string | undefined> {
  const response = await fetch(`${server.url}/api/hosts`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  const hosts = (await response.json()) as { name: string; state: string }[];
  return hosts.find((host) => host.name === name)?.state;
}

export async function replicasBenchmarks(): Promise<boolean[]> {
  let database: TestDatabase;
  try {
    database = await createTestDatabase();
  } catch (error) {
    console.log(
      `replica figures not measured: no PostgreSQL (${error instanceof Error ? error.message : error})`,
    );
    return [];
  }
  const servers: Server[] = [];
  const hosts: HostChild[] = [];
  try {
    const flags = ['--local-shells', 'off', '--database', database.url];
    servers.push(await startServer(flags));
    const [a] = servers as [Server];
    for (let i = 0; i < HOSTS; i++) hosts.push(await startHost(a, `bench-one-${i}`, AGENTS));
    const alone = Array.from({ length: AGENTS }, (_, i) => ({
      agent: `bench-one-${i}`,
      server: a,
    }));
    await startShells(alone);
    const oneRate = await callRate(alone);
    servers.push(await startServer(flags));
    const b = servers[1] as Server;
    const deadline = Date.now() + RELAY_DEADLINE_MS;
    while ((await hostStateOn(b, 'bench-one-0')) !== 'connected') {
      if (Date.now() > deadline) throw new Error('replica B did not reach the host through A');
      await sleep(100);
    }
    await call(a, 'bench-relay', 'true');
    await call(b, 'bench-relay', 'true');
    const direct: number[] = [];
    const relayed: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      for (const [server, times] of [
        [a, direct],
        [b, relayed],
      ] as const) {
        const start = performance.now();
        await call(server, 'bench-relay', 'true');
        times.push(performance.now() - start);
      }
    }
    const extra = median(relayed) - median(direct);
    const relayFigure = report(
      'bash("true") through replica B to a host linked to replica A: extra over direct, against 1 ms',
      extra / EXTRA_MS_TARGET,
      1,
      `(median ${median(relayed).toFixed(2)} ms vs ${median(direct).toFixed(2)} ms through A)`,
    );
    // The same number of hosts, now split across the two replicas.
    for (const host of hosts.splice(0)) await stopHost(host);
    const linkedTo = new Map<string, Server>();
    for (let i = 0; i < HOSTS; i++) {
      const server = servers[i % 2] as Server;
      hosts.push(await startHost(server, `bench-two-${i}`, AGENTS));
      linkedTo.set(`bench-two-${i}`, server);
    }
    for (const name of linkedTo.keys()) await connectedOnBoth(servers, name);
    const pair: RoutedAgent[] = Array.from({ length: AGENTS }, (_, i) => ({
      agent: `bench-two-${i}`,
      server: servers[Math.floor(i / 2) % 2] as Server,
    }));
    await startShells(pair);
    const twoRate = await callRate(pair);
    const relayedCount = await relayedAgents(pair, linkedTo);
    return [
      relayFigure,
      report(
        `calls per second with ${AGENTS} agents on ${HOSTS} hosts: one replica over two on one PostgreSQL, against 1.2`,
        oneRate / twoRate,
        RATE_RATIO_TARGET,
        `(${twoRate.toFixed(0)} calls/s through two replicas, ${relayedCount} of ${AGENTS} agents relayed, against ${oneRate.toFixed(0)} through one)`,
      ),
    ];
  } finally {
    for (const host of hosts) await stopHost(host);
    for (const server of servers) await stopServer(server);
    await database.drop();
  }
}

/** Waits (bounded) until every replica lists `name` connected. */
async function connectedOnBoth(servers: readonly Server[], name: string): Promise<void> {
  const deadline = Date.now() + RELAY_DEADLINE_MS;
  for (const server of servers) {
    while ((await hostStateOn(server, name)) !== 'connected') {
      if (Date.now() > deadline) throw new Error(`${name} is not connected on every replica`);
      await sleep(100);
    }
  }
}
