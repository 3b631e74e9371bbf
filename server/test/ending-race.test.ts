/**
 * A call that comes while the agent's shell is being ended (a person closed it, a host ended
 * it for a lost link) starts in a new shell: ending a tree takes a moment, and a call let into
 * the dying shell meanwhile answered `[shell killed by signal: SIGHUP]` for a command that
 * never ran (CI, hosts-netns.test.ts: the host's grace ended its shells as the agent called).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { bashCall, startServer, type TestServer } from './support/http-server.ts';

let server: TestServer;
let agents = 0;

beforeAll(async () => {
  server = await startServer({ flags: ['--timeout-ms', '20000'] });
});

afterAll(async () => {
  await server.close();
});

function call(agent: string, command: string): Promise<{ status: number; output: string }> {
  return bashCall(server, agent, command);
}

async function liveSessionOf(agent: string): Promise<SessionInfo> {
  const response = await server.request('/api/sessions', { token: server.adminToken });
  const found = ((await response.json()) as SessionInfo[]).find(
    (s) => s.agent === agent && s.state !== 'exited',
  );
  if (found === undefined) throw new Error(`no live session for ${agent}`);
  return found;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a call that comes while its shell is being closed', () => {
  // Sent at once, and a little later: both within the close (its hang-up grace is 40 ms).
  for (const delayMs of [0, 5, 15, 30]) {
    it(`runs in a new shell (sent ${delayMs} ms after the close)`, async () => {
      const agent = `ending-race-${++agents}`;
      expect(await call(agent, 'export KEPT=1; echo set')).toEqual({ status: 200, output: 'set' });
      const old = await liveSessionOf(agent);
      const closed = server.request(`/api/sessions/${old.id}`, {
        method: 'DELETE',
        token: server.adminToken,
      });
      await pause(delayMs);
      const next = call(agent, 'echo "kept=${KEPT:-no}"');
      expect((await closed).status).toBe(204);
      expect(await next).toEqual({ status: 200, output: 'kept=no' });
      expect((await liveSessionOf(agent)).id).not.toBe(old.id);
    });
  }

  it('queued behind a call the close cuts short, runs in a new shell', async () => {
    const agent = `ending-race-${++agents}`;
    expect(await call(agent, 'export KEPT=1; echo set')).toEqual({ status: 200, output: 'set' });
    const old = await liveSessionOf(agent);
    const sleeping = call(agent, 'sleep 30; echo never');
    await pause(300);
    const closed = server.request(`/api/sessions/${old.id}`, {
      method: 'DELETE',
      token: server.adminToken,
    });
    const next = call(agent, 'echo "kept=${KEPT:-no}"');
    expect((await closed).status).toBe(204);
    // How the cut call ends is the hang-up's (bash may still run `echo never` as `sleep` dies,
    // as at a terminal whose line drops); it is answered, and the next call is not in it.
    expect((await sleeping).status).toBe(200);
    expect(await next).toEqual({ status: 200, output: 'kept=no' });
  });
});
