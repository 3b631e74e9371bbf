/**
 * PostgreSQL going away mid-run (issue 24), against a real server and real bash: live shells
 * keep working, `/healthz` says `database: unavailable`, routes that need the database answer
 * 503 `DATABASE_UNAVAILABLE`, and what happened meanwhile (calls, the shell's row, its
 * recording) is written once the database is back. The database is cut by a relay of this
 * test's own (support/database-cut.ts), never by stopping the shared cluster.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallInfo, SessionInfo } from '../../shared/src/api.ts';
import { parseAsciicast } from '../../shared/src/asciicast.ts';
import { DatabaseCut } from './support/database-cut.ts';
import { errorOf, startServer, type TestServer } from './support/http-server.ts';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
} from './support/test-database.ts';

/** The database's probe looks every second; a loaded machine may take a few. */
const BACK_DEADLINE_MS = 20_000;

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + BACK_DEADLINE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.runIf(TEST_DATABASE_URL !== '')('history while PostgreSQL is away', () => {
  let database: TestDatabase;
  let relay: DatabaseCut;
  let server: TestServer | undefined;
  beforeEach(async () => {
    database = await createTestDatabase();
    relay = await DatabaseCut.open(database.url);
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await relay.close();
    await database.drop();
  });

  const health = async (s: TestServer): Promise<string> =>
    ((await (await s.request('/healthz')).json()) as { database: string }).database;
  const call = async (s: TestServer, command: string): Promise<string> => {
    const response = await s.post('/api/agents/away/bash', { command });
    expect(response.status).toBe(200);
    return ((await response.json()) as { output: string }).output;
  };

  it('keeps shells working, answers 503 DATABASE_UNAVAILABLE, and writes everything once it is back', async () => {
    const s = await startServer({ database: relay.relayedUrl });
    server = s;
    expect(await call(s, 'echo before-outage')).toBe('before-outage');
    const [shell] = (await (
      await s.request('/api/sessions', { token: s.adminToken })
    ).json()) as SessionInfo[];
    if (shell === undefined) throw new Error('no shell');
    await s.app.history.flush();

    await relay.cut();
    // The next flush finds the database gone.
    await until(async () => (await health(s)) === 'unavailable', '/healthz to say unavailable');
    expect(await call(s, 'echo during-outage')).toBe('during-outage');
    const live = await s.request('/api/sessions', { token: s.adminToken });
    expect(live.status).toBe(200);
    for (const path of [
      '/api/sessions?state=all',
      '/api/audit',
      `/api/sessions/${shell.id}/calls`,
    ]) {
      const refused = await s.request(path, { token: s.adminToken });
      expect(refused.status, path).toBe(503);
      expect(await errorOf(refused)).toEqual({
        code: 'DATABASE_UNAVAILABLE',
        message:
          'the database does not answer: past shells, their calls and recordings, and the audit can be read once it is back (live shells keep working; GET /healthz says when)',
      });
    }
    const storage = (await (await s.request('/api/storage', { token: s.adminToken })).json()) as {
      areas: { area: string; keptItems: number; failing: unknown }[];
    };
    const history = storage.areas.find((area) => area.area === 'history');
    expect(history?.failing).not.toBeNull();
    expect(history?.keptItems).toBeGreaterThan(0);

    await relay.restore();
    await until(async () => (await health(s)) === 'ok', '/healthz to say ok again');
    await until(async () => {
      const response = await s.request(`/api/sessions/${shell.id}/calls`, { token: s.adminToken });
      return response.status === 200;
    }, 'the calls route to answer');
    // Written, not served from memory: read straight from the database.
    const direct = new pg.Client({ connectionString: database.url });
    await direct.connect();
    try {
      await until(async () => {
        const rows = await direct.query<{ command: string }>(
          'SELECT command FROM history_calls WHERE session_id = $1 ORDER BY seq',
          [shell.id],
        );
        return rows.rows.length === 2;
      }, 'both calls in the database');
      const rows = await direct.query<{ command: string }>(
        'SELECT command FROM history_calls WHERE session_id = $1 ORDER BY seq',
        [shell.id],
      );
      expect(rows.rows.map((row) => row.command)).toEqual([
        'echo before-outage',
        'echo during-outage',
      ]);
    } finally {
      await direct.end();
    }
    const calls = (await (
      await s.request(`/api/sessions/${shell.id}/calls`, { token: s.adminToken })
    ).json()) as CallInfo[];
    expect(calls.map((c) => c.output)).toEqual(['before-outage', 'during-outage']);
    await until(async () => {
      const response = await s.request(`/api/sessions/${shell.id}/recording`, {
        token: s.adminToken,
      });
      if (response.status !== 200) return false;
      const output = parseAsciicast(await response.text())
        .events.filter(([, code]) => code === 'o')
        .map(([, , data]) => data)
        .join('');
      return output.includes('during-outage\r\n');
    }, 'the recording to hold the output made during the outage');
  });
});
