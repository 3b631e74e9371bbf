/**
 * Recordings on disk: a `kill -9` of the real server process leaves a valid asciicast holding
 * the output up to the kill (and the shell is listed as stopped with the server), and a long
 * recording rotates into parts that the recording route joins back into one — as files, or as
 * chunks in PostgreSQL with `--database`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { parseAsciicast } from '../../shared/src/asciicast.ts';
import { FLUSH_INTERVAL_MS } from '../src/store/history.ts';
import { HISTORY_ENGINES } from './support/history-engines.ts';
import { openTestDatabase, startServer, type TestServer } from './support/http-server.ts';
import { createTestDatabase, TEST_DATABASE_URL } from './support/test-database.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** Starting node with tsx and the engine takes about a second; leave room for slow machines. */
const START_DEADLINE_MS = 20_000;
/** How long the flushed recording may take to reach the disk on a busy machine. */
const RECORDING_DEADLINE_MS = 10_000;

let root: string;
let child: ChildProcess | undefined;
let server: TestServer | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-recording-'));
});
afterEach(async () => {
  if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  await server?.close();
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

function outputOf(recording: string): string {
  return parseAsciicast(recording)
    .events.filter(([, code]) => code === 'o')
    .map(([, , data]) => data)
    .join('');
}

/** Starts `npm start`'s server as a child process and resolves with its base URL. */
async function spawnServer(dataDir: string): Promise<string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('JUMPSEAT_')),
  );
  const started = spawn(
    process.execPath,
    ['--import', 'tsx', 'server/src/main.ts', '--port', '0', '--data-dir', dataDir],
    { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child = started;
  let stdout = '';
  let stderr = '';
  started.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  started.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    const base = /listening on (http:\/\/\S+?)\/?\n/.exec(stdout)?.[1];
    if (base !== undefined) return base;
    if (started.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`no banner; stderr: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('kill -9', () => {
  it('leaves a valid recording holding the output up to the kill', async () => {
    const dataDir = join(root, 'data');
    const base = await spawnServer(dataDir);
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const response = await fetch(`${base}/api/agents/k9/bash`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'for i in 1 2 3; do echo "line-$i-before-kill"; done' }),
    });
    expect(await response.json()).toEqual({
      output: 'line-1-before-kill\nline-2-before-kill\nline-3-before-kill',
    });
    // Past one flush (written by a low-priority thread: on a loaded machine, wait for it).
    await new Promise((resolve) => setTimeout(resolve, FLUSH_INTERVAL_MS * 2));
    const dir = join(dataDir, 'recordings');
    const deadline = Date.now() + RECORDING_DEADLINE_MS;
    while (
      !readdirSync(dir).some((name) => readFileSync(join(dir, name), 'utf8').includes('end: for'))
    ) {
      if (Date.now() > deadline) throw new Error('the recording was not written');
      await new Promise((resolve) => setTimeout(resolve, FLUSH_INTERVAL_MS));
    }
    child?.kill('SIGKILL');
    await new Promise((resolve) => child?.once('exit', resolve));

    const files = readdirSync(join(dataDir, 'recordings'));
    expect(files).toHaveLength(1);
    const text = readFileSync(join(dataDir, 'recordings', files[0] as string), 'utf8');
    const { header, events } = parseAsciicast(text);
    expect(header).toMatchObject({ version: 2, width: 120, height: 40 });
    expect(text.endsWith('\n')).toBe(true);
    expect(outputOf(text)).toContain(
      'line-1-before-kill\r\nline-2-before-kill\r\nline-3-before-kill\r\n',
    );
    expect(events.filter(([, code]) => code === 'm').map(([, , label]) => label)).toEqual([
      'for i in 1 2 3; do echo "line-$i-before-kill"; done',
      'end: for i in 1 2 3; do echo "line-$i-before-kill"; done',
    ]);

    // The next server lists it as stopped with the server, and serves what it kept.
    server = await startServer({ dataDir });
    const listed = (await (
      await server.request('/api/sessions?state=all', { token })
    ).json()) as SessionInfo[];
    expect(listed.map((s) => [s.agent, s.state, s.ending?.kind])).toEqual([
      ['k9', 'ended', 'server_stopped'],
    ]);
    const calls = (await (
      await server.request(`/api/sessions/${listed[0]?.id}/calls`, { token })
    ).json()) as { output: string }[];
    expect(calls.map((c) => c.output)).toEqual([
      'line-1-before-kill\nline-2-before-kill\nline-3-before-kill',
    ]);
  });
});

describe('rotation', () => {
  it('splits a long recording into parts, each a valid asciicast, joined by the route', async () => {
    const dataDir = join(root, 'data');
    server = await startServer({ dataDir, flags: ['--recording-max-file-bytes', '4096'] });
    const response = await server.post('/api/agents/rot/bash', {
      command:
        'printf -v pad "%*s" 200 ""; for i in $(seq 1 40); do echo "row-$i ${pad// /x}"; sleep 0.02; done',
    });
    expect(response.status).toBe(200);
    const [session] = (await (
      await server.request('/api/sessions', { token: server.adminToken })
    ).json()) as SessionInfo[];
    const recording = await (
      await server.request(`/api/sessions/${session?.id}/recording`, { token: server.adminToken })
    ).text();
    const dir = join(dataDir, 'recordings');
    const parts = readdirSync(dir).sort();
    expect(parts.length).toBeGreaterThan(1);
    expect(parts).toContain(`${session?.id}.cast`);
    expect(parts).toContain(`${session?.id}.2.cast`);
    for (const part of parts) {
      const text = readFileSync(join(dir, part), 'utf8');
      // Over the cap by at most one event line.
      expect(text.length).toBeLessThan(4096 + 1024);
      expect(parseAsciicast(text).header).toMatchObject({ version: 2, width: 120 });
    }
    const output = outputOf(recording).replaceAll('\r\n', '\n');
    for (let i = 1; i <= 40; i++) expect(output).toContain(`row-${i} ${'x'.repeat(200)}\n`);
    const times = parseAsciicast(recording).events.map(([t]) => t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });
});

describe('retention', () => {
  it('deletes recordings past the age cap when the server starts', async () => {
    const dataDir = join(root, 'data');
    const dir = join(dataDir, 'recordings');
    mkdirSync(dir, { recursive: true });
    const header = `${JSON.stringify({ version: 2, width: 120, height: 40, timestamp: 1 })}\n`;
    writeFileSync(join(dir, 'old-shell.cast'), header);
    writeFileSync(join(dir, 'new-shell.cast'), header);
    const old = new Date(Date.now() - 3 * 24 * 3600 * 1000);
    utimesSync(join(dir, 'old-shell.cast'), old, old);
    server = await startServer({ dataDir, flags: ['--recording-max-age-days', '2'] });
    await server.app.history.applyRetention();
    expect(readdirSync(dir)).toEqual(['new-shell.cast']);
  });
});

describe.each(HISTORY_ENGINES)('retention, history on $name', (engine) => {
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await engine.tearDown();
  });

  it('forgets past shells and auth events older than the age cap, not newer ones', async () => {
    const flags = ['--recording-max-age-days', '2'];
    const first = await startServer({ flags, ...(await engine.setUp()) });
    expect((await first.post('/api/agents/kept/bash', { command: 'exit 3' })).status).toBe(200);
    await first.close({ keepData: true });
    const again = await startServer({
      dataDir: first.config.dataDir,
      flags,
      ...(first.database === undefined ? {} : { database: first.database }),
    });
    server = again;
    const get = async <T>(path: string): Promise<T> =>
      (await again.request(path, { token: again.adminToken })).json() as Promise<T>;
    const [shell] = await get<SessionInfo[]>('/api/sessions?state=all');
    expect(shell?.state).toBe('ended');
    expect((await get<unknown[]>('/api/audit')).length).toBeGreaterThan(1);
    await again.app.history.applyRetention();
    expect(await get<SessionInfo[]>('/api/sessions?state=all')).toHaveLength(1);
    // Three days on, the shell that ended today is past the two-day cap.
    await again.app.history.applyRetention(Date.now() + 3 * 24 * 3600 * 1000);
    expect(await get<SessionInfo[]>('/api/sessions?state=all')).toEqual([]);
    const calls = await again.request(`/api/sessions/${shell?.id}/calls`, {
      token: again.adminToken,
    });
    expect(calls.status).toBe(404);
    expect(await get<unknown[]>('/api/audit')).toEqual([]);
  });
});

describe.runIf(TEST_DATABASE_URL !== '')('rotation in PostgreSQL', () => {
  it('splits a long recording into parts of chunks, joined by the route', async () => {
    const database = await createTestDatabase();
    try {
      server = await startServer({
        database: database.url,
        flags: ['--recording-max-file-bytes', '4096'],
      });
      const response = await server.post('/api/agents/rot/bash', {
        command:
          'printf -v pad "%*s" 200 ""; for i in $(seq 1 40); do echo "row-$i ${pad// /x}"; sleep 0.02; done',
      });
      expect(response.status).toBe(200);
      const [session] = (await (
        await server.request('/api/sessions', { token: server.adminToken })
      ).json()) as SessionInfo[];
      const recording = await (
        await server.request(`/api/sessions/${session?.id}/recording`, {
          token: server.adminToken,
        })
      ).text();
      const direct = await openTestDatabase(database.url);
      const parts = await direct.query<{ part: number; bytes: string }>(
        'SELECT part, bytes FROM history_recording_parts WHERE session_id = $1 ORDER BY part',
        [session?.id],
      );
      await direct.close();
      expect(parts.rows.length).toBeGreaterThan(1);
      // Over the cap by at most one event line.
      for (const row of parts.rows) expect(Number(row.bytes)).toBeLessThan(4096 + 1024);
      const output = outputOf(recording).replaceAll('\r\n', '\n');
      for (let i = 1; i <= 40; i++) expect(output).toContain(`row-${i} ${'x'.repeat(200)}\n`);
      const times = parseAsciicast(recording).events.map(([t]) => t);
      expect(times).toEqual([...times].sort((a, b) => a - b));
    } finally {
      await server?.close();
      server = undefined;
      await database.drop();
    }
  });
});
