/**
 * A host's link lasts: it shares the control plane's WebSocket server with the live pages,
 * whose own heartbeat (every 30 s) once cut every link at its second round, so each host
 * re-linked about once a minute (its relayed pages closing, its calls waiting). A control
 * plane and a host on loopback, idle past three of those rounds: the link never dropped.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HostCluster, PROCESS_START_MS } from '../support/host-cluster.ts';

/** Past the live heartbeat's third round (30 s each). */
const IDLE_MS = 95_000;

const cluster = new HostCluster();

beforeAll(async () => {
  await cluster.startControlPlane();
  await cluster.startHost('steady');
}, 3 * PROCESS_START_MS);

afterAll(async () => {
  await cluster.close();
}, 60_000);

it(
  'stays up while idle, past the live pages’ heartbeat rounds',
  async () => {
    expect(await cluster.call('calm', 'echo before')).toEqual({ status: 200, output: 'before' });
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    expect(await cluster.call('calm', 'echo after')).toEqual({ status: 200, output: 'after' });
    const [host] = cluster.hosts;
    expect(host?.stderr()).not.toContain('lost the link');
  },
  IDLE_MS + 60_000,
);
