/**
 * A replica link down past the grace period while both replicas live (issue 24): host h1 is
 * linked to replica A, and replica B (grace 3 s) reaches it through A over the link A dials
 * to B (B's --replica-url is a forwarder the test cuts). Cut for longer than B's grace, B
 * gives up h1's shell in its own view (`host_lost`) while it lives on at A; when the link is
 * back, B takes the shell back: listed live again with the same id and state, and the
 * agent's next call on B continues it. Before, B listed it again only after its restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, PROCESS_START_MS } from './support/host-cluster.ts';
import { HAS_TEST_DATABASE, ReplicaSet } from './support/replica-set.ts';
import { liveSession, shellOf } from './support/session-info.ts';
import { TcpForwarder } from './support/tcp-forwarder.ts';

/** B's grace period for hosts it reaches (ms): short, so the outage outlasts it soon. */
const B_GRACE_MS = 3000;
/** Generous bounds for a loaded 2-core machine (ms). */
const GIVEN_UP_WITHIN_MS = 30_000;
const TAKEN_BACK_WITHIN_MS = 30_000;

const replicas = new ReplicaSet(2);
const [a, b] = [replicas.at(0), replicas.at(1)];
let forwarder: TcpForwarder | undefined;

describe.runIf(HAS_TEST_DATABASE)('a replica link down past the grace period', () => {
  beforeAll(async () => {
    const { env } = await replicas.open();
    b.port = await freePort();
    const forwarderPort = await freePort();
    forwarder = replicas.keep(await TcpForwarder.start(forwarderPort, b.port));
    await Promise.all([
      a.startControlPlane([], env),
      b.startControlPlane(
        [
          '--replica-url',
          `http://127.0.0.1:${forwarderPort}`,
          '--host-grace-ms',
          String(B_GRACE_MS),
        ],
        env,
      ),
    ]);
    await a.startHost('h1');
    await replicas.hostsConnected(['h1'], [b]);
  }, 2 * PROCESS_START_MS);

  afterAll(() => replicas.close(), 90_000);

  it(
    'B takes back the shells it gave up once the link to A is back',
    async () => {
      expect(await b.call('kept', 'export KEPT=yes; echo first')).toEqual({
        status: 200,
        output: 'first',
      });
      const shellId = await shellOf(b, 'kept');
      // Refused until restored: the outage lasts as long as the test needs, not a guess.
      forwarder?.cut(10 * 60_000);
      await b.waitFor(
        async () => (await liveSession(b, 'kept')) === undefined,
        'B to give up the shell past its grace period',
        GIVEN_UP_WITHIN_MS,
      );
      const ended = (await b.sessions()).find((s) => s.id === shellId);
      expect(ended?.ending).toMatchObject({ kind: 'host_lost' });
      // It lives on at A all along.
      expect(await shellOf(a, 'kept')).toBe(shellId);
      forwarder?.restore();
      await b.waitFor(
        async () => (await liveSession(b, 'kept'))?.id === shellId,
        'B to take the shell back',
        TAKEN_BACK_WITHIN_MS,
      );
      expect(await b.hostState('h1')).toBe('connected');
      // Listed once, live.
      expect((await b.sessions()).filter((s) => s.id === shellId).map((s) => s.state)).toEqual([
        'idle',
      ]);
      const hosts = (await (await b.request('/api/hosts')).json()) as {
        name: string;
        shells: number;
      }[];
      expect(hosts.find((host) => host.name === 'h1')?.shells).toBe(1);
      expect(await b.call('kept', 'echo "$KEPT-back"')).toEqual({
        status: 200,
        output: 'yes-back',
      });
      expect(await shellOf(b, 'kept')).toBe(shellId);
    },
    2 * PROCESS_START_MS,
  );
});
