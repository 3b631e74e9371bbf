/**
 * The audit lasts under abuse, attacked through HTTP: a flood of refused requests is one row
 * per address, status and minute with a count; the row cap drops refusals and first uses
 * before admin actions; renames are rate-limited (429 with Retry-After) and the tokens file is
 * saved lazily; `GET /api/audit` filters by kind, token, time and page. On both history engines
 * (SQLite, and PostgreSQL with `--database`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../shared/src/api.ts';
import { RENAME_BURST } from '../src/auth/rename-limit.ts';
import { HISTORY_ENGINES, type HistoryEngine } from './support/history-engines.ts';
import { errorOf, startServer, type TestServer } from './support/http-server.ts';

/** Unauthenticated requests of the flood (bounded; loopback only). */
const FLOOD_REQUESTS = 400;
/** Requests in flight at once during the flood. */
const FLOOD_CONCURRENCY = 20;
const AUDIT_MAX_ROWS = 100;
/** Tokens minted and used once each: two audit rows per token, past the cap. */
const CAP_TOKENS = 60;

const servers: TestServer[] = [];
let engine: HistoryEngine | undefined;
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await engine?.tearDown();
});

async function start(flags: string[] = []): Promise<TestServer> {
  const server = await startServer({ flags, ...(await engine?.setUp()) });
  servers.push(server);
  return server;
}

async function audit(server: TestServer, query = ''): Promise<AuditEvent[]> {
  const response = await server.request(`/api/audit${query}`, { token: server.adminToken });
  expect(response.status).toBe(200);
  return (await response.json()) as AuditEvent[];
}

describe.each(HISTORY_ENGINES)('audit bounds, history on $name', (historyEngine) => {
  beforeEach(() => {
    engine = historyEngine;
  });

  describe('the audit under a flood', () => {
    it('counts a flood of refused requests into one row per address, status and minute', async () => {
      const server = await start();
      for (let sent = 0; sent < FLOOD_REQUESTS; sent += FLOOD_CONCURRENCY) {
        const batch = Array.from({ length: FLOOD_CONCURRENCY }, (_, i) =>
          server.request(i % 2 === 0 ? '/api/sessions' : '/api/tools', {
            ...(i % 4 === 0 ? { token: 'js_not-a-token' } : {}),
          }),
        );
        for (const response of await Promise.all(batch)) expect(response.status).toBe(401);
      }
      const refused = await audit(server, '?kind=refused');
      // A minute may turn during the flood: then two rows, never more.
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused.length).toBeLessThanOrEqual(2);
      expect(refused.reduce((sum, row) => sum + row.count, 0)).toBe(FLOOD_REQUESTS);
      for (const row of refused) {
        expect(row).toMatchObject({ kind: 'refused', status: 401, address: '127.0.0.1' });
        expect(row.lastAt === null || row.lastAt >= row.at).toBe(true);
      }
    });

    it('keeps the audit to its row cap, dropping first uses before admin actions', async () => {
      const server = await start(['--audit-max-rows', String(AUDIT_MAX_ROWS)]);
      for (let i = 0; i < CAP_TOKENS; i++) {
        const token = await server.mint({ role: 'viewer', name: `v${i}` });
        expect((await server.request('/api/sessions', { token })).status).toBe(200);
      }
      const rows = await audit(server, `?limit=10000`);
      expect(rows.length).toBeLessThanOrEqual(AUDIT_MAX_ROWS);
      const minted = rows.filter((row) => row.kind === 'minted').map((row) => row.name);
      expect(minted).toHaveLength(CAP_TOKENS);
      expect(rows.filter((row) => row.kind === 'new_address').length).toBeLessThan(CAP_TOKENS);
    });
  });

  describe('renames', () => {
    it('are refused with 429 and Retry-After past the burst, and saved without a write each', async () => {
      const server = await start();
      await server.mint({ role: 'viewer', name: 'first' });
      const listed = await server.request('/api/tokens', { token: server.adminToken });
      const [{ id }] = (await listed.json()) as [{ id: string }];
      const rename = (name: string): Promise<Response> =>
        server.request(`/api/tokens/${id}`, {
          method: 'PATCH',
          token: server.adminToken,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        });
      for (let i = 0; i < RENAME_BURST; i++) expect((await rename(`name-${i}`)).status).toBe(200);
      const refused = await rename('one-too-many');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const error = await errorOf(refused);
      expect(error.code).toBe('RATE_LIMITED');
      expect(error.message).toMatch(/^too many renames: .* try again in \d+ s$/);
      const file = join(server.config.dataDir, 'tokens.json');
      await expect
        .poll(() => readFileSync(file, 'utf8'), { timeout: 10_000 })
        .toContain(`"name-${RENAME_BURST - 1}"`);
      expect(readFileSync(file, 'utf8')).not.toContain('one-too-many');
      const named = await audit(server, `?kind=named&token=${id}`);
      expect(named.map((row) => row.name)).toEqual(
        Array.from({ length: RENAME_BURST }, (_, i) => `name-${RENAME_BURST - 1 - i}`),
      );
    });
  });

  describe('GET /api/audit filters', () => {
    it('by kind, token, time and page, and refuses a bad kind or time', async () => {
      const server = await start();
      const vic = await server.mint({ role: 'viewer', name: 'Vic' });
      expect((await server.request('/api/audit', { token: vic })).status).toBe(403);
      expect((await server.request('/api/sessions')).status).toBe(401);
      const all = await audit(server);
      const vicId = all.find((row) => row.kind === 'minted' && row.name === 'Vic')?.tokenId;
      expect(vicId).toEqual(expect.any(String));
      const ofVic = await audit(server, `?token=${vicId}`);
      // A refused request never counts as a use: no first use from the address.
      expect(ofVic.map((row) => [row.kind, row.status])).toEqual([
        ['refused', 403],
        ['minted', null],
      ]);
      const kinds = await audit(server, '?kind=minted,refused');
      expect(new Set(kinds.map((row) => row.kind))).toEqual(new Set(['minted', 'refused']));
      const future = new Date(Date.now() + 3600_000).toISOString();
      expect(await audit(server, `?since=${future}`)).toEqual([]);
      expect((await audit(server, `?until=${future}`)).length).toBe(all.length);
      const [newest, second] = all;
      expect(await audit(server, `?limit=1&before=${newest?.id}`)).toEqual([second]);
      const badKind = await server.request('/api/audit?kind=minted,nope', {
        token: server.adminToken,
      });
      expect(badKind.status).toBe(400);
      expect((await errorOf(badKind)).message).toBe(
        'kind must be among minted, revoked, named, new_address, refused (got "nope")',
      );
      const badTime = await server.request('/api/audit?since=yesterday', {
        token: server.adminToken,
      });
      expect(badTime.status).toBe(400);
    });
  });
});
