/**
 * Caps hold when bytes are written, not only at the retention sweep, attacked through tool
 * calls: the recordings' total cap (a marker says where recording stopped), the rotation size
 * per file, and the saved outputs' caps per agent and in all (the oldest go first; a file cut
 * by a cap says so in its last line). The recordings' caps hold in PostgreSQL too
 * (`--database`: parts of chunks).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordingCapMarker } from '../src/store/recording-disk.ts';
import { savedOutputIn } from '../src/tool/contract-text.ts';
import { openTestDatabase, startServer, type TestServer } from './support/http-server.ts';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
} from './support/test-database.ts';

const RECORDING_TOTAL = 200_000;
const RECORDING_FILE = 50_000;
/** About 1.3 MB of output: six times the recordings' total cap. */
const FLOOD = 'seq 1 200000';
const SPILL_AGENT = 200_000;
const SPILL_TOTAL = 300_000;
/** About 590 KB of output: one saved output past the agent's cap on its own. */
const BIG = 'seq 1 100000';
/** About 140 KB: a few fit under the agent's cap. */
const MEDIUM = 'seq 1 25000';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function filesUnder(dir: string): { path: string; size: number }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return stat.isFile() ? [{ path, size: stat.size }] : [];
  });
}

const total = (files: { size: number }[]): number => files.reduce((sum, f) => sum + f.size, 0);

async function call(server: TestServer, agent: string, command: string): Promise<string> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command });
  expect(response.status).toBe(200);
  return ((await response.json()) as { output: string }).output;
}

describe('the recordings cap', () => {
  it('holds at write time: past it output is dropped and a marker says so', async () => {
    const server = await startServer({
      flags: [
        '--recording-max-total-bytes',
        String(RECORDING_TOTAL),
        '--recording-max-file-bytes',
        String(RECORDING_FILE),
      ],
    });
    servers.push(server);
    await call(server, 'flood', FLOOD);
    await call(server, 'flood', 'echo after-the-flood');
    await server.app.history.flush();
    const recordings = join(server.config.dataDir, 'recordings');
    const files = filesUnder(recordings);
    expect(total(files)).toBeLessThanOrEqual(RECORDING_TOTAL);
    for (const file of files) expect(file.size).toBeLessThanOrEqual(RECORDING_FILE);
    const [session] = (await (
      await server.request('/api/sessions', { token: server.adminToken })
    ).json()) as { id: string }[];
    const cast = await server.request(`/api/sessions/${session?.id}/recording`, {
      token: server.adminToken,
    });
    expect(cast.status).toBe(200);
    const text = await cast.text();
    expect(text).toContain(JSON.stringify(recordingCapMarker(RECORDING_TOTAL)).slice(1, -1));
    // Every line is whole JSON: nothing was cut in the middle of an event.
    for (const line of text.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe('the recordings cap and ended shells', () => {
  it('deletes the oldest recordings of ended shells to make room for a live one', async () => {
    const server = await startServer({
      flags: ['--recording-max-total-bytes', String(RECORDING_TOTAL)],
    });
    servers.push(server);
    await call(server, 'first', 'seq 1 20000; exit 0');
    await server.app.history.flush();
    const recordings = join(server.config.dataDir, 'recordings');
    const [firstFile] = filesUnder(recordings);
    expect(firstFile?.size).toBeGreaterThan(RECORDING_TOTAL / 2);
    await call(server, 'second', 'seq 1 20000');
    await server.app.history.flush();
    const files = filesUnder(recordings);
    expect(files.map((f) => f.path)).not.toContain(firstFile?.path);
    expect(total(files)).toBeLessThanOrEqual(RECORDING_TOTAL);
    const text = readFileSync(files[0]?.path as string, 'utf8');
    expect(text).toContain('19999');
    expect(text).not.toContain('recording cap reached');
  });
});

describe.runIf(TEST_DATABASE_URL !== '')('the recordings caps in PostgreSQL', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    await database.drop();
  });

  /** Every part's size, oldest shell first. */
  async function parts(): Promise<{ sessionId: string; size: number }[]> {
    const direct = await openTestDatabase(database.url);
    try {
      const rows = await direct.query<{ session_id: string; bytes: string }>(
        'SELECT session_id, bytes FROM history_recording_parts ORDER BY written_at, part',
      );
      return rows.rows.map((row) => ({ sessionId: row.session_id, size: Number(row.bytes) }));
    } finally {
      await direct.close();
    }
  }

  it('hold at write time: parts under the file size, all under the total, a marker past it', async () => {
    const server = await startServer({
      database: database.url,
      flags: [
        '--recording-max-total-bytes',
        String(RECORDING_TOTAL),
        '--recording-max-file-bytes',
        String(RECORDING_FILE),
      ],
    });
    servers.push(server);
    await call(server, 'flood', FLOOD);
    await call(server, 'flood', 'echo after-the-flood');
    await server.app.history.flush();
    const written = await parts();
    expect(total(written)).toBeLessThanOrEqual(RECORDING_TOTAL);
    for (const part of written) expect(part.size).toBeLessThanOrEqual(RECORDING_FILE);
    const [session] = (await (
      await server.request('/api/sessions', { token: server.adminToken })
    ).json()) as { id: string }[];
    const text = await (
      await server.request(`/api/sessions/${session?.id}/recording`, { token: server.adminToken })
    ).text();
    expect(text).toContain(JSON.stringify(recordingCapMarker(RECORDING_TOTAL)).slice(1, -1));
    for (const line of text.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('deletes the oldest recordings of ended shells to make room for a live one', async () => {
    const server = await startServer({
      database: database.url,
      flags: ['--recording-max-total-bytes', String(RECORDING_TOTAL)],
    });
    servers.push(server);
    await call(server, 'first', 'seq 1 20000; exit 0');
    await server.app.history.flush();
    const [first] = await parts();
    expect(first?.size).toBeGreaterThan(RECORDING_TOTAL / 2);
    await call(server, 'second', 'seq 1 20000');
    await server.app.history.flush();
    // The first shell's parts go behind the writer's back: give the delete a moment.
    await expect
      .poll(async () => (await parts()).map((part) => part.sessionId), { timeout: 5000 })
      .not.toContain(first?.sessionId);
    expect(total(await parts())).toBeLessThanOrEqual(RECORDING_TOTAL);
  });
});

describe('the saved output per file', () => {
  it('is cut at --spill-max-file-bytes with a line saying so', async () => {
    const server = await startServer({
      flags: ['--max-output-chars', '1000', '--spill-max-file-bytes', '65536'],
    });
    servers.push(server);
    const path = savedOutputIn(await call(server, 'one', BIG));
    const text = readFileSync(path as string, 'utf8');
    expect(text.endsWith('\n[output cut here: a saved output is limited to 65536 bytes]\n')).toBe(
      true,
    );
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(65536 + 100);
  });
});

describe('the saved outputs caps', () => {
  it('hold per agent and in all at write time: the oldest go first, a cut file says why', async () => {
    const server = await startServer({
      flags: [
        '--max-output-chars',
        '1000',
        '--spill-max-agent-bytes',
        String(SPILL_AGENT),
        '--spill-max-total-bytes',
        String(SPILL_TOTAL),
      ],
    });
    servers.push(server);
    const outputs = join(server.config.dataDir, 'outputs');
    const big = savedOutputIn(await call(server, 'a1', BIG));
    expect(big).not.toBeNull();
    const cut = readFileSync(big as string, 'utf8');
    expect(
      cut.endsWith(
        "[output cut here: one agent's saved outputs are limited to 200000 bytes in all]\n",
      ),
    ).toBe(true);
    expect(statSync(big as string).size).toBeLessThanOrEqual(SPILL_AGENT);
    const saved: string[] = [];
    for (const agent of ['a1', 'a2', 'a1', 'a2', 'a3']) {
      const path = savedOutputIn(await call(server, agent, MEDIUM));
      expect(path).not.toBeNull();
      saved.push(path as string);
      const files = filesUnder(outputs);
      expect(total(files)).toBeLessThanOrEqual(SPILL_TOTAL);
      for (const dir of ['a1', 'a2', 'a3']) {
        expect(total(files.filter((f) => f.path.includes(`/${dir}/`)))).toBeLessThanOrEqual(
          SPILL_AGENT,
        );
      }
    }
    // The newest saved output is whole and readable at the path its result names.
    const last = readFileSync(saved.at(-1) as string, 'utf8');
    expect(last.startsWith('1\n2\n3\n')).toBe(true);
    expect(last.trimEnd().endsWith('25000')).toBe(true);
    // The first, cut one went to make room.
    expect(() => statSync(big as string)).toThrow();
  });
});
