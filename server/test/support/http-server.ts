/**
 * Starts the whole HTTP server (real engine, real shells) on 127.0.0.1 and a free port in a
 * fresh data dir, for tests that speak to it over a real socket with fetch.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildApp, type JumpseatApp } from '../../src/api/app.ts';
import type { LogSettings } from '../../src/api/logging.ts';
import { TokenStore } from '../../src/auth/token-store.ts';
import { type Config, loadConfig } from '../../src/config/config.ts';
import { readDatabaseUrl } from '../../src/database/database-url.ts';
import { PostgresDatabase } from '../../src/database/postgres-database.ts';
import { migratePostgres } from '../../src/database/postgres-migrations.ts';
import { POSTGRES_MIGRATIONS } from '../../src/database/schema.ts';
import type { StorageHealth } from '../../src/ops/storage-health.ts';
import { createToolService } from '../../src/tool/create-tool-service.ts';

export interface TestServer {
  /** `http://127.0.0.1:PORT` without a trailing slash. */
  readonly origin: string;
  readonly adminToken: string;
  readonly config: Config;
  /** The PostgreSQL URL it was started with (`database`), to start the next one on it. */
  readonly database?: string;
  readonly app: JumpseatApp;
  /** The server's token store (to mint what the API refuses, e.g. a link expiring in 1 s). */
  readonly tokens: TokenStore;
  /** fetch against the server; `token` becomes a Bearer header. */
  request(path: string, init?: TestRequestInit): Promise<Response>;
  /** POSTs `body` as JSON, as the admin unless a token (or null: none) is given. */
  post(path: string, body: unknown, token?: string | null): Promise<Response>;
  /** Mints a token through the API as the admin. */
  mint(request: { role: string; agent?: string; name?: string }): Promise<string>;
  /** Closes the server (and every shell); removes the data dir unless `keepData`. */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface TestRequestInit extends RequestInit {
  readonly token?: string;
}

export interface TestServerOptions {
  readonly flags?: readonly string[];
  readonly logger?: LogSettings;
  /** Reuse a data dir (restart tests); a fresh one otherwise. */
  readonly dataDir?: string;
  /** The environment shells inherit, and where pwsh is looked for (the server's otherwise). */
  readonly shellEnv?: NodeJS.ProcessEnv;
  /** How often a running MCP call reports progress (AppOptions.mcpProgressIntervalMs). */
  readonly mcpProgressIntervalMs?: number;
  /** Keep-alive of a running 2026-07-28 MCP call (AppOptions.mcpKeepAliveMs). */
  readonly mcpKeepAliveMs?: number;
  /** The storage health (to read its warnings); a stderr-writing one otherwise. */
  readonly health?: StorageHealth;
  /** How long a viewer past its buffer bound stays unread before it is closed (AppOptions). */
  readonly liveStallCloseMs?: number;
  /** `--database`: a PostgreSQL URL (a test database's), opened and migrated as serve does. */
  readonly database?: string;
}

/** Opens and migrates PostgreSQL as `serve --database` does (serve.ts's openDatabase). */
export async function openTestDatabase(url: string): Promise<PostgresDatabase> {
  const read = readDatabaseUrl({ raw: url, source: '--database' });
  if (read === null) throw new Error('no database URL');
  const database = new PostgresDatabase(read);
  await migratePostgres(database, POSTGRES_MIGRATIONS);
  return database;
}

/**
 * Data dirs this helper made: a restart given one (`dataDir`, after `close({keepData: true})`)
 * removes it at its own close, as the first server would have.
 */
const madeDataDirs = new Set<string>();

export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? join(mkdtempSync(join(tmpdir(), 'jumpseat-http-')), 'data');
  if (options.dataDir === undefined) madeDataDirs.add(dataDir);
  // Shells work under the test's own directory, not the user's default workspace.
  const workspace = join(dirname(dataDir), 'workspace');
  mkdirSync(workspace, { recursive: true });
  const flags = options.flags ?? [];
  const config = loadConfig(
    [
      '--data-dir',
      dataDir,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      ...(flags.includes('--workspace') ? [] : ['--workspace', workspace]),
      ...flags,
    ],
    {},
  );
  const tokens = TokenStore.open(config.dataDir, config.adminToken);
  const database =
    options.database === undefined ? undefined : await openTestDatabase(options.database);
  const app = buildApp({
    ...(database === undefined ? {} : { database }),
    config,
    tools: createToolService(
      config,
      options.shellEnv === undefined ? {} : { baseEnv: options.shellEnv },
    ),
    tokens,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.mcpProgressIntervalMs === undefined
      ? {}
      : { mcpProgressIntervalMs: options.mcpProgressIntervalMs }),
    ...(options.mcpKeepAliveMs === undefined ? {} : { mcpKeepAliveMs: options.mcpKeepAliveMs }),
    ...(options.health === undefined ? {} : { health: options.health }),
    ...(options.liveStallCloseMs === undefined
      ? {}
      : { liveStallCloseMs: options.liveStallCloseMs }),
  });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('server has no port');
  const origin = `http://127.0.0.1:${address.port}`;

  const request = (path: string, init: TestRequestInit = {}): Promise<Response> => {
    const { token, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    return fetch(`${origin}${path}`, { ...rest, headers, redirect: 'manual' });
  };
  const post = (
    path: string,
    body: unknown,
    token: string | null = config.adminToken,
  ): Promise<Response> =>
    request(path, {
      method: 'POST',
      ...(token === null ? {} : { token }),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  return {
    origin,
    adminToken: config.adminToken,
    config,
    ...(options.database === undefined ? {} : { database: options.database }),
    app,
    tokens,
    request,
    post,
    async mint(body) {
      const response = await post('/api/tokens', body);
      if (response.status !== 201) throw new Error(`mint failed: ${await response.text()}`);
      const reply: unknown = await response.json();
      if (typeof reply !== 'object' || reply === null || !('token' in reply)) {
        throw new Error('mint reply has no token');
      }
      return String(reply.token);
    },
    async close({ keepData = false } = {}) {
      await app.close();
      if (!keepData && madeDataDirs.delete(dataDir)) {
        rmSync(join(dataDir, '..'), { recursive: true, force: true });
      }
    },
  };
}

/** The `{"error": {...}}` body of a refusal. */
export async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  const body: unknown = await response.json();
  if (typeof body !== 'object' || body === null || !('error' in body)) {
    throw new Error(`not an error body: ${JSON.stringify(body)}`);
  }
  const error: unknown = body.error;
  if (typeof error !== 'object' || error === null) throw new Error('error is not an object');
  return {
    code: 'code' in error ? String(error.code) : '',
    message: 'message' in error ? String(error.message) : '',
  };
}

/** An agent's bash call: the status and the result text, or the refusal's body as JSON. */
export async function bashCall(
  server: TestServer,
  agent: string,
  command: string,
): Promise<{ status: number; output: string }> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command });
  if (response.status !== 200) {
    return { status: response.status, output: JSON.stringify(await errorOf(response)) };
  }
  return { status: 200, output: ((await response.json()) as { output: string }).output };
}
