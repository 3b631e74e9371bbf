/**
 * Disk faults are loud and lose nothing that can be kept, on a real small disk (a tmpfs filled
 * to ENOSPC, then remounted read-only): calls go on; history rows and recording bytes wait in
 * memory and reach the disk when it takes writes again (and survive a restart); `/healthz`
 * and `GET /api/storage` say the state; a warning is written even with logging off; a clipped
 * result says its full output was not saved; `POST /api/tokens` answers 503, never 500.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { CallInfo, SessionInfo } from '../../shared/src/api.ts';
import { StorageHealth } from '../src/ops/storage-health.ts';
import { fullOutputNotSavedLine, spillRefusedReason } from '../src/tool/contract-text.ts';
import { errorOf, startServer, type TestServer } from './support/http-server.ts';
import { mountSmallDisk, type SmallDisk, smallDiskUnavailable } from './support/small-disk.ts';

const DISK_BYTES = 16 * 1024 * 1024;
const CALLS_DURING_FAULT = 5;
const POLL = { timeout: 20_000, interval: 100 };
/** A fault test starts servers, fills a disk and restarts: room for a busy 2-core machine. */
const FAULT_TEST_MS = 120_000;

const unavailable = smallDiskUnavailable();
if (unavailable !== null) {
  process.stderr.write(`disk-faults.test: NOT RUN — ${unavailable}\n`);
}

const disks: SmallDisk[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close({ keepData: true })));
}, FAULT_TEST_MS);
afterAll(() => {
  for (const disk of disks.splice(0)) disk.remove();
});

interface Health {
  ok: boolean;
  storage: string;
  failing: string[];
}

async function boot(disk: SmallDisk, warnings: string[]): Promise<TestServer> {
  const server = await startServer({
    dataDir: disk.dir,
    flags: ['--max-output-chars', '200'],
    health: new StorageHealth((line) => warnings.push(line)),
  });
  servers.push(server);
  return server;
}

async function call(server: TestServer, command: string, agent = 'disk'): Promise<string> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command });
  expect(response.status).toBe(200);
  return ((await response.json()) as { output: string }).output;
}

async function json<T>(server: TestServer, path: string): Promise<T> {
  const response = await server.request(path, { token: server.adminToken });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

const health = (server: TestServer): Promise<Health> => json<Health>(server, '/healthz');

describe.skipIf(unavailable !== null)('a full data dir (ENOSPC on a real tmpfs)', () => {
  it(
    'keeps calls going, says so everywhere, and writes everything kept when space returns',
    async () => {
      const disk = mountSmallDisk(mkdtempSync(join(tmpdir(), 'jumpseat-enospc-')), DISK_BYTES);
      disks.push(disk);
      const warnings: string[] = [];
      const server = await boot(disk, warnings);
      expect(await call(server, 'echo before')).toBe('before');
      disk.fill();

      const clipped = await call(server, 'seq 1 2000');
      expect(clipped.endsWith(`\n${fullOutputNotSavedLine(spillRefusedReason('ENOSPC'))}`)).toBe(
        true,
      );
      for (let i = 1; i <= CALLS_DURING_FAULT; i++) {
        expect(await call(server, `echo during-${i}`)).toBe(`during-${i}`);
      }
      const refused = await server.post('/api/tokens', { role: 'viewer', name: 'nope' });
      expect(refused.status).toBe(503);
      expect(await errorOf(refused)).toEqual({
        code: 'STORAGE_UNAVAILABLE',
        message:
          'the tokens file cannot be written (ENOSPC); nothing was changed — try again once the data dir has space and write access',
      });
      await expect
        .poll(async () => (await health(server)).failing.sort(), POLL)
        .toEqual(['history', 'outputs', 'recordings', 'tokens']);
      expect((await health(server)).storage).toBe('degraded');
      const storage = await json<{ areas: { area: string; keptItems: number }[] }>(
        server,
        '/api/storage',
      );
      expect(storage.areas.find((a) => a.area === 'history')?.keptItems).toBeGreaterThan(0);
      // SQLite says SQLITE_FULL where the file system says ENOSPC.
      expect(warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^jumpseat: warning: the data dir cannot be written \(SQLITE_FULL, history\)/,
          ),
          expect.stringMatching(
            /^jumpseat: warning: the data dir cannot be written \(ENOSPC, recordings\)/,
          ),
        ]),
      );
      // The calls made meanwhile are served from memory.
      const [shell] = await json<SessionInfo[]>(server, '/api/sessions');
      const during = await json<CallInfo[]>(server, `/api/sessions/${shell?.id}/calls`);
      expect(during.map((c) => c.output)).toContain(`during-${CALLS_DURING_FAULT}`);

      // A new agent's shell starts too: its private dir takes room the data dir kept for it
      // (the rest of that room may then take other writes: asked last, before space returns).
      expect(await call(server, 'echo a-new-shell', 'newcomer')).toBe('a-new-shell');
      disk.empty();
      await expect.poll(async () => (await health(server)).storage, POLL).toBe('ok');
      expect(
        warnings.some((w) =>
          w.startsWith('jumpseat: the data dir takes history writes again; nothing was lost'),
        ),
      ).toBe(true);
      expect(await server.mint({ role: 'viewer', name: 'after' })).toMatch(/^js_/);
      const cast = await server.request(`/api/sessions/${shell?.id}/recording`, {
        token: server.adminToken,
      });
      expect(await cast.text()).toContain(`during-${CALLS_DURING_FAULT}`);

      // Written for good: a restart on the same disk finds every call and the recording.
      await server.close({ keepData: true });
      servers.length = 0;
      const again = await boot(disk, warnings);
      const calls = await json<CallInfo[]>(again, `/api/sessions/${shell?.id}/calls`);
      expect(calls.map((c) => c.command)).toEqual([
        'echo before',
        'seq 1 2000',
        ...Array.from({ length: CALLS_DURING_FAULT }, (_, i) => `echo during-${i + 1}`),
      ]);
      const replay = await again.request(`/api/sessions/${shell?.id}/recording`, {
        token: again.adminToken,
      });
      expect(replay.status).toBe(200);
      expect(await replay.text()).toContain(`during-${CALLS_DURING_FAULT}`);
    },
    FAULT_TEST_MS,
  );
});

describe.skipIf(unavailable !== null)('a read-only data dir (EROFS)', () => {
  it(
    'answers calls, refuses mints with 503, and recovers when it is writable again',
    async () => {
      const disk = mountSmallDisk(mkdtempSync(join(tmpdir(), 'jumpseat-erofs-')), DISK_BYTES);
      disks.push(disk);
      const warnings: string[] = [];
      const server = await boot(disk, warnings);
      expect(await call(server, 'echo before')).toBe('before');
      disk.readOnly();
      try {
        expect(await call(server, 'echo while-read-only')).toBe('while-read-only');
        const refused = await server.post('/api/tokens', { role: 'viewer' });
        expect(refused.status).toBe(503);
        expect((await errorOf(refused)).message).toContain('(EROFS)');
        await expect
          .poll(async () => (await health(server)).failing, POLL)
          .toEqual(expect.arrayContaining(['recordings', 'tokens']));
        expect(warnings.some((w) => w.includes('(EROFS, tokens)'))).toBe(true);
      } finally {
        disk.readWrite();
      }
      await expect.poll(async () => (await health(server)).storage, POLL).toBe('ok');
      const [shell] = await json<SessionInfo[]>(server, '/api/sessions');
      await server.close({ keepData: true });
      servers.length = 0;
      const again = await boot(disk, warnings);
      const calls = await json<CallInfo[]>(again, `/api/sessions/${shell?.id}/calls`);
      expect(calls.map((c) => c.output)).toEqual(['before', 'while-read-only']);
      const replay = await again.request(`/api/sessions/${shell?.id}/recording`, {
        token: again.adminToken,
      });
      expect(await replay.text()).toContain('while-read-only');
    },
    FAULT_TEST_MS,
  );
});
