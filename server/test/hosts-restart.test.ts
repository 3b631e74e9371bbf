/**
 * A control-plane restart keeps every shell on joined hosts alive: the control plane stops
 * (SIGTERM), starts again on the same address and data dir, the host rejoins by itself, and
 * the agent's next call continues its shell with its state (variables, directory, functions).
 * With history in PostgreSQL too: the restarted control plane is a new replica, and the shell
 * its host kept is not ended by it (history-replicas.ts) but written again as its own.
 * An admin's drain of the host outlives the restart on both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { HISTORY_ENGINES } from './support/history-engines.ts';
import { HostCluster, PROCESS_START_MS, stopProcess } from './support/host-cluster.ts';

describe.each(HISTORY_ENGINES)('history on $name', (engine) => {
  const cluster = new HostCluster();
  let flags: string[] = [];

  beforeAll(async () => {
    const { database } = await engine.setUp();
    flags = database === undefined ? [] : ['--database', database];
    await cluster.startControlPlane(flags);
    await cluster.startHost('keeper');
  }, 2 * PROCESS_START_MS);

  afterAll(async () => {
    await cluster.close();
    await engine.tearDown();
  }, 60_000);

  it(
    'a restarted control plane continues the shell its host kept, state and all',
    async () => {
      expect(
        await cluster.call(
          'survivor',
          'export KEPT=42; cd /tmp; greet() { echo "hi $1"; }; echo set',
        ),
      ).toEqual({ status: 200, output: 'set' });
      const [before] = (await cluster.sessions()).filter((s) => s.agent === 'survivor');
      await stopProcess(cluster.controlPlane?.process);
      await cluster.startControlPlane(flags);
      await cluster.waitFor(
        async () => (await cluster.hostState('keeper')) === 'connected',
        'the host to rejoin',
        PROCESS_START_MS,
      );
      const [after] = (await cluster.sessions()).filter((s) => s.agent === 'survivor');
      expect(after?.id).toBe(before?.id);
      expect(after?.host).toBe('keeper');
      expect(await cluster.call('survivor', 'echo $KEPT; pwd; greet there')).toEqual({
        status: 200,
        output: '42\n/tmp\nhi there',
      });
      // The restarted control plane's history has the calls of both lives, and one recording:
      // an asciicast with one header, holding the output from before and after the restart.
      const calls = (await (await cluster.request(`/api/sessions/${after?.id}/calls`)).json()) as {
        output: string;
      }[];
      expect(calls.map((call) => call.output)).toEqual(['set', '42\n/tmp\nhi there']);
      await cluster.waitFor(
        async () => {
          const response = await cluster.request(`/api/sessions/${after?.id}/recording`);
          return response.status === 200 && (await response.text()).includes('hi there');
        },
        'the recording to hold the call after the restart',
        20_000,
      );
      const recording = await (
        await cluster.request(`/api/sessions/${after?.id}/recording`)
      ).text();
      const lines = recording.trimEnd().split('\n');
      expect(lines.filter((line) => line.startsWith('{')).length).toBe(1);
      for (const line of lines.slice(1)) expect(Array.isArray(JSON.parse(line))).toBe(true);
      expect(recording).toContain('set');
      // Listed among all shells as running, not ended by the restart.
      const all = (await (
        await cluster.request('/api/sessions?state=all')
      ).json()) as SessionInfo[];
      expect(all.filter((s) => s.id === after?.id).map((s) => [s.state, s.ending])).toEqual([
        ['idle', null],
      ]);
    },
    3 * PROCESS_START_MS,
  );

  it(
    'a drain outlives the restart (hosts.db, or PostgreSQL), and an undrain after it holds',
    async () => {
      const drain = (method: 'POST' | 'DELETE') =>
        cluster.request('/api/hosts/keeper/drain', { method });
      expect((await drain('POST')).status).toBe(200);
      await stopProcess(cluster.controlPlane?.process);
      await cluster.startControlPlane(flags);
      await cluster.waitFor(
        async () => (await cluster.hostState('keeper')) === 'draining',
        'the host to rejoin, still drained',
        PROCESS_START_MS,
      );
      expect(await cluster.call('newcomer', 'echo no')).toMatchObject({
        status: 503,
        error: { code: 'NO_HOST', message: 'every host is draining' },
      });
      expect((await drain('DELETE')).status).toBe(200);
      expect(await cluster.call('newcomer', 'echo yes')).toEqual({ status: 200, output: 'yes' });
    },
    2 * PROCESS_START_MS,
  );
});
