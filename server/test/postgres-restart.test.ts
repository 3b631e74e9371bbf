/**
 * PostgreSQL really stopped and started mid-run (issue 24): a server of the test's own
 * (support/private-postgres.ts, `pg_ctl stop -m fast` then `pg_ctl start`), two replicas on it,
 * each a process of its own, and a real host linked to replica A. While PostgreSQL is down,
 * calls through A and through B keep answering exactly, `/healthz` says `database:
 * unavailable` and a token mint answers 503 DATABASE_UNAVAILABLE; once it is back, `/healthz`
 * says `ok` and the calls made during the outage are in the history B reads. Without
 * PostgreSQL's server binaries the suite says so in one line, and fails under CI=true.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostCluster, PROCESS_START_MS } from './support/host-cluster.ts';
import { PrivatePostgres, privatePostgresMissing } from './support/private-postgres.ts';

const missing = privatePostgresMissing();
if (missing !== null) console.log(`the private PostgreSQL test did not run: ${missing}`);

/** How long a replica may take to notice the database gone or back (ms): probes run each 1 s. */
const NOTICE_MS = 20_000;

const a = new HostCluster();
const b = new HostCluster();
let postgres: PrivatePostgres | undefined;

async function health(cluster: HostCluster): Promise<string> {
  return ((await (await fetch(`${cluster.origin}/healthz`)).json()) as { database: string })
    .database;
}

async function shellOf(cluster: HostCluster, agent: string): Promise<string> {
  const session = (await cluster.sessions()).find((s) => s.agent === agent && s.state !== 'exited');
  if (session === undefined) throw new Error(`agent ${agent} has no shell`);
  return session.id;
}

async function historyCalls(
  cluster: HostCluster,
  id: string,
): Promise<{ command: string; output: string }[]> {
  const response = await cluster.request(`/api/sessions/${id}/calls`);
  if (response.status !== 200) return [];
  return (await response.json()) as { command: string; output: string }[];
}

describe('PostgreSQL stopped and started under two replicas', () => {
  it.runIf(missing !== null && process.env.CI === 'true')(
    'has PostgreSQL server binaries under CI=true',
    () => {
      expect(missing).toBeNull();
    },
  );

  describe.runIf(missing === null)('with a private PostgreSQL server', () => {
    beforeAll(async () => {
      postgres = await PrivatePostgres.start();
      const env = {
        JUMPSEAT_TOKEN: randomBytes(24).toString('base64url'),
        JUMPSEAT_DATABASE_URL: postgres.url,
      };
      await Promise.all([a.startControlPlane([], env), b.startControlPlane([], env)]);
      await a.startHost('h1');
      await b.waitFor(
        async () => (await b.hostState('h1')) === 'connected',
        'replica B to reach h1 through A',
        30_000,
      );
    }, 3 * PROCESS_START_MS);

    afterAll(async () => {
      try {
        await Promise.all([a.close(), b.close()]);
      } finally {
        await postgres?.remove();
      }
    }, 120_000);

    it('calls answer exactly while it is down, what needs it answers 503, and history has them once it is back', async () => {
      expect(await a.call('outage', 'echo before')).toEqual({ status: 200, output: 'before' });
      const id = await shellOf(a, 'outage');
      await postgres?.stop();
      const during: string[] = [];
      try {
        expect(await a.call('outage', 'echo during-a-$((40+2))')).toEqual({
          status: 200,
          output: 'during-a-42',
        });
        during.push('echo during-a-$((40+2))');
        expect(await b.call('outage', 'echo during-b')).toEqual({
          status: 200,
          output: 'during-b',
        });
        during.push('echo during-b');
        for (const cluster of [a, b]) {
          await cluster.waitFor(
            async () => (await health(cluster)) === 'unavailable',
            `${cluster.origin}/healthz to say unavailable`,
            NOTICE_MS,
          );
        }
        const mint = await a.request('/api/tokens', {
          method: 'POST',
          body: JSON.stringify({ role: 'agent', agent: 'minted-while-down' }),
        });
        expect(mint.status).toBe(503);
        expect(((await mint.json()) as { error: { code: string } }).error.code).toBe(
          'DATABASE_UNAVAILABLE',
        );
        // Still exact after the replicas noticed.
        expect(await b.call('outage', 'echo "$((6*7))" still')).toEqual({
          status: 200,
          output: '42 still',
        });
        during.push('echo "$((6*7))" still');
      } finally {
        await postgres?.startAgain();
      }
      for (const cluster of [a, b]) {
        await cluster.waitFor(
          async () => (await health(cluster)) === 'ok',
          `${cluster.origin}/healthz to say ok`,
          NOTICE_MS,
        );
      }
      // Recorded by A (it holds the host's link), read by B from PostgreSQL.
      await b.waitFor(
        async () => (await historyCalls(b, id)).length === 4,
        "B's history to have the four calls",
        NOTICE_MS,
      );
      expect((await historyCalls(b, id)).map(({ command, output }) => [command, output])).toEqual([
        ['echo before', 'before'],
        [during[0], 'during-a-42'],
        [during[1], 'during-b'],
        [during[2], '42 still'],
      ]);
      // A token mint works again.
      expect(await a.mint({ role: 'agent', agent: 'minted-after' })).toMatch(/^js_/);
    }, 120_000);
  });
});
