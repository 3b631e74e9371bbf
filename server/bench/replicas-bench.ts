/**
 * Replicas (issue 24.5): two control planes (`--local-shells off`) on one PostgreSQL database
 * made for the run, one `jumpseat host` linked to replica A. A `bash("true")` call made on
 * replica B (relayed B → A → host) against the same call made on A directly, alternated so
 * both see the same machine: the extra, against 1 ms. Skipped, saying why, without a
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

const CALLS = 200;
const EXTRA_MS_TARGET = 1;
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
  let host: HostChild | undefined;
  try {
    const flags = ['--local-shells', 'off', '--database', database.url];
    servers.push(await startServer(flags), await startServer(flags));
    const [a, b] = servers as [Server, Server];
    host = await startHost(a, 'bench-relay-host', 20);
    const deadline = Date.now() + RELAY_DEADLINE_MS;
    while ((await hostStateOn(b, 'bench-relay-host')) !== 'connected') {
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
    return [
      report(
        'bash("true") through replica B to a host linked to replica A: extra over direct, against 1 ms',
        extra / EXTRA_MS_TARGET,
        1,
        `(median ${median(relayed).toFixed(2)} ms vs ${median(direct).toFixed(2)} ms through A)`,
      ),
    ];
  } finally {
    if (host !== undefined) await stopHost(host);
    for (const server of servers) await stopServer(server);
    await database.drop();
  }
}
