/**
 * A host's link moving from replica B to replica A while B lives (issue 24): the host joins
 * B through a load balancer (the test's forwarder); the path to B then dies silently
 * (`strand()`: no FIN, no RST) and the balancer sends the host's next link to A. The host's
 * hello there carries a newer link number; A relays it to B, which still holds (or just
 * dropped) the old link: B lets the host go to A, lists it as A's, and offers A the call it
 * had in flight, which answers exactly, once, in the same shell. A third replica C, which
 * reached the host through B, reaches it through A from then on and offers A its own call in
 * flight there, which answers exactly too. From then on only A records the shell: the output
 * of a call made after the move is in its recording once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type HostCluster, PROCESS_START_MS } from './support/host-cluster.ts';
import { HAS_TEST_DATABASE, ReplicaSet } from './support/replica-set.ts';
import { liveSession, shellOf } from './support/session-info.ts';
import { TcpForwarder } from './support/tcp-forwarder.ts';

/** The host and B each notice the silence (7 s) and the host re-links: generous on a loaded
 *  machine, and far inside the grace period (60 s), so nothing may end meanwhile. */
const MOVED_WITHIN_MS = 40_000;

const replicas = new ReplicaSet(3);
const [a, b, c] = [replicas.at(0), replicas.at(1), replicas.at(2)];
let balancer: TcpForwarder | undefined;

interface ListedHost {
  name: string;
  state: string;
  replica?: string;
}

async function hostListed(cluster: HostCluster, name: string): Promise<ListedHost | undefined> {
  const hosts = (await (await cluster.request('/api/hosts')).json()) as ListedHost[];
  return hosts.find((host) => host.name === name);
}

describe.runIf(HAS_TEST_DATABASE)('a host whose link moves between live replicas (three)', () => {
  beforeAll(async () => {
    const { env } = await replicas.open();
    b.port = await freePort();
    balancer = replicas.keep(await TcpForwarder.start(await freePort(), b.port));
    await Promise.all([
      a.startControlPlane([], env),
      b.startControlPlane([], env),
      c.startControlPlane([], env),
    ]);
  }, 3 * PROCESS_START_MS);

  afterAll(() => replicas.close(), 90_000);

  it(
    'B lets the host go to A, and its call in flight answers exactly through A',
    async () => {
      const balanced = `http://127.0.0.1:${(balancer as TcpForwarder).port}`;
      await b.startHost('h1', ['--join', balanced]);
      await replicas.hostsConnected(['h1'], [a, c]);
      const [replicaA, replicaB] = [await a.replicaId(), await b.replicaId()];
      expect((await hostListed(b, 'h1'))?.replica).toBe(replicaB);
      expect(await b.call('mover', 'export KEPT=yes; echo first')).toEqual({
        status: 200,
        output: 'first',
      });
      expect(await c.call('third', 'export KEPT=c; echo third')).toEqual({
        status: 200,
        output: 'third',
      });
      const shellId = await shellOf(b, 'mover');
      const call = b.call('mover', 'sleep 3; echo "moved-$((6*7))-$KEPT"');
      const callOnC = c.call('third', 'sleep 3; echo "third-$((6*7))-$KEPT"');
      for (const [cluster, agent] of [
        [b, 'mover'],
        [c, 'third'],
      ] as const) {
        await cluster.waitFor(
          async () => (await liveSession(cluster, agent))?.state === 'running',
          `${agent}'s call to run`,
          10_000,
        );
      }
      balancer?.retarget(a.port);
      balancer?.strand();
      for (const cluster of [a, b, c]) {
        await cluster.waitFor(
          async () => {
            const host = await hostListed(cluster, 'h1');
            return host?.state === 'connected' && host.replica === replicaA;
          },
          `h1 listed on ${cluster.origin} as linked to A`,
          MOVED_WITHIN_MS,
        );
      }
      expect(await call).toEqual({ status: 200, output: 'moved-42-yes' });
      expect(await callOnC).toEqual({ status: 200, output: 'third-42-c' });
      // The same shell, on every replica, and nothing ended.
      for (const cluster of [a, b, c]) expect(await shellOf(cluster, 'mover')).toBe(shellId);
      expect(await b.call('mover', 'echo "after-$((40+2))-$KEPT"')).toEqual({
        status: 200,
        output: 'after-42-yes',
      });
      expect(await a.call('mover', 'echo "on-a-$((1+1))"')).toEqual({
        status: 200,
        output: 'on-a-2',
      });
      // Recorded by A alone from the move on: each output once in the recording.
      const recording = async (): Promise<string> =>
        (await a.request(`/api/sessions/${shellId}/recording`)).text();
      await a.waitFor(
        async () => (await recording()).includes('on-a-2'),
        'the recording to hold the last call',
        20_000,
      );
      const text = await recording();
      expect(text.split('after-42-yes').length - 1).toBe(1);
      expect(text.split('on-a-2').length - 1).toBe(1);
    },
    3 * PROCESS_START_MS,
  );
});
