/**
 * A replica killed with SIGKILL (issue 24.3, for what the relay owes it): a host joined
 * through a load balancer (the test's forwarder) to replica A, and an agent's call made on
 * replica B relayed through A to it. A dies mid-call; the balancer sends the host's next
 * link to B, which adopts the host with its shells as a restarted control plane does, and
 * the call made on B answers exactly (the host kept its result). No shell ended.
 *
 * The host's token is minted on A and is valid on B: the replicas share the token store in
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, PROCESS_START_MS } from './support/host-cluster.ts';
import { HAS_TEST_DATABASE, ReplicaSet } from './support/replica-set.ts';
import { TcpForwarder } from './support/tcp-forwarder.ts';

const replicas = new ReplicaSet(2);
const [a, b] = [replicas.at(0), replicas.at(1)];
let balancer: TcpForwarder | undefined;
let hostToken = '';
let probeToken = '';

describe.runIf(HAS_TEST_DATABASE)('a replica killed with SIGKILL', () => {
  beforeAll(async () => {
    const { env } = await replicas.open();
    a.port = await freePort();
    balancer = replicas.keep(await TcpForwarder.start(await freePort(), a.port));
    await a.startControlPlane([], env);
    hostToken = await a.mint({ role: 'host', name: 'h1' });
    probeToken = await a.mint({ role: 'viewer', name: 'probe' });
    await b.startControlPlane([], env);
  }, 2 * PROCESS_START_MS);

  afterAll(() => replicas.close(), 90_000);

  it('hands its hosts to another replica, and a call made there through it answers', async () => {
    // Tokens are shared through the database: one minted on A works on B.
    expect((await b.request('/api/sessions', { token: probeToken })).status).toBe(200);
    const balanced = `http://127.0.0.1:${(balancer as TcpForwarder).port}`;
    await a.startHost('h1', ['--join', balanced], hostToken);
    await b.waitFor(async () => (await b.hostState('h1')) === 'connected', 'h1 on B', 30_000);
    expect(await b.call('survivor', 'echo first; export KEPT=yes')).toEqual({
      status: 200,
      output: 'first',
    });
    const shellId = (await b.sessions()).find((s) => s.agent === 'survivor')?.id;
    const call = b.call('survivor', 'sleep 4; echo "survived-$((6*7))-$KEPT"');
    await b.waitFor(
      async () => (await b.sessions()).some((s) => s.id === shellId && s.state === 'running'),
      'the call to run',
      10_000,
    );
    a.controlPlane?.process.kill('SIGKILL');
    balancer?.retarget(b.port);
    const lostAt = Date.now();
    const replicaB = await b.replicaId();
    await b.waitFor(
      async () => {
        const hosts = (await (await b.request('/api/hosts')).json()) as Record<string, unknown>[];
        return hosts.some((h) => h.name === 'h1' && h.replica === replicaB);
      },
      'h1 linked to B',
      20_000,
    );
    expect(Date.now() - lostAt).toBeLessThan(5000);
    expect(await call).toEqual({ status: 200, output: 'survived-42-yes' });
    expect(await b.call('survivor', 'echo "$KEPT-after"')).toEqual({
      status: 200,
      output: 'yes-after',
    });
    expect((await b.sessions()).find((s) => s.agent === 'survivor')?.id).toBe(shellId);
  }, 120_000);
});
