/**
 * An ended shell keeps its info, calls and last screen, not its screen model: its page still
 * shows the last screen (the snapshot kept at exit, with ENDED_SCROLLBACK_LINES of history),
 * and its calls and recording are served as before — from either history engine (SQLite, or
 * PostgreSQL with `--database`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInfo, SessionInfo } from '../../shared/src/api.ts';
import { ENDED_SCROLLBACK_LINES } from '../src/session/shell-display.ts';
import { HISTORY_ENGINES } from './support/history-engines.ts';
import { startServer, type TestServer } from './support/http-server.ts';
import { LiveClient } from './support/live-client.ts';

/** Shells ended by their own call; a flush between the exit and the record lost some. */
const ENDING_SHELLS = 24;
const ENDING_CONCURRENCY = 4;
/**
 * 24 sandboxed shells started and ended take 16-18 s with three CPU hogs alone, and up to
 * 30 s beside the other suites in CI: near the default limit.
 */
const ENDING_TIMEOUT_MS = 120_000;

describe.each(HISTORY_ENGINES)('an ended shell, history on $name', (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(await engine.setUp());
  });
  afterAll(async () => {
    await server.close();
    await engine.tearDown();
  });

  it('shows its last screen to a late viewer, and keeps its calls and recording', async () => {
    const response = await server.post('/api/agents/gone/bash', {
      command: 'seq 1 3000; echo last-words; exit 3',
    });
    expect(response.status).toBe(200);
    const sessions = (await (
      await server.request('/api/sessions', { token: server.adminToken })
    ).json()) as SessionInfo[];
    const ended = sessions.find((s) => s.agent === 'gone');
    expect(ended?.state).toBe('exited');
    const url = `${server.origin.replace('http', 'ws')}/api/sessions/${ended?.id}/live`;
    const join = async (): Promise<{ data: string; screen: string }> => {
      const client = await LiveClient.connect(url, { token: server.adminToken });
      try {
        const snapshot = await client.next('snapshot');
        expect(snapshot.reason).toBe('join');
        return { data: snapshot.data, screen: await client.screenText() };
      } finally {
        client.socket.close();
      }
    };
    // Before and after the screen model is let go (once the display was quiet a moment), a
    // late viewer sees the last screen.
    expect((await join()).screen).toContain('last-words');
    const early = `\r\n${3000 - 2 * ENDED_SCROLLBACK_LINES}\r\n`;
    await expect
      .poll(async () => (await join()).data.includes(early), { timeout: 15_000, interval: 200 })
      .toBe(false);
    const kept = await join();
    expect(kept.screen).toContain('last-words');
    // The kept history is the last ENDED_SCROLLBACK_LINES lines, not the model's 2000.
    expect(kept.data).toContain(`\r\n${3000 - ENDED_SCROLLBACK_LINES + 40}\r\n`);
    const calls = (await (
      await server.request(`/api/sessions/${ended?.id}/calls`, { token: server.adminToken })
    ).json()) as CallInfo[];
    expect(calls.map((c) => c.outcome)).toEqual(['shell_exit']);
    const cast = await server.request(`/api/sessions/${ended?.id}/recording`, {
      token: server.adminToken,
    });
    expect(await cast.text()).toContain('last-words');
  });

  it(
    'records the call that ended its shell, however the flushes fall',
    async () => {
      const agents = Array.from({ length: ENDING_SHELLS }, (_, i) => `ending-${i}`);
      for (let i = 0; i < agents.length; i += ENDING_CONCURRENCY) {
        const batch = agents.slice(i, i + ENDING_CONCURRENCY).map(async (agent) => {
          const response = await server.post(`/api/agents/${agent}/bash`, {
            command: 'seq 1 3000; exit 0',
          });
          expect(response.status, `${agent}: ${await response.clone().text()}`).toBe(200);
        });
        await Promise.all(batch);
      }
      const listed = await server.request('/api/sessions?state=all', { token: server.adminToken });
      expect(listed.status, await listed.clone().text()).toBe(200);
      const all = (await listed.json()) as SessionInfo[];
      for (const agent of agents) {
        const shell = all.find((s) => s.agent === agent);
        const answer = await server.request(`/api/sessions/${shell?.id}/calls`, {
          token: server.adminToken,
        });
        expect([agent, answer.status], JSON.stringify(shell)).toEqual([agent, 200]);
        const calls = (await answer.json()) as CallInfo[];
        expect([agent, calls.map((c) => [c.command, c.outcome])]).toEqual([
          agent,
          [['seq 1 3000; exit 0', 'shell_exit']],
        ]);
      }
    },
    ENDING_TIMEOUT_MS,
  );
});
