/**
 * `npm start` and `jumpseat serve`: reads the configuration, starts the engine and the HTTP
 * server, prints where to connect, and on SIGINT or SIGTERM shuts down gracefully: no new
 * requests, in-flight calls cancelled (their callers told so), every shell's process tree
 * ended, then exit 0.
 */

import type { Server as HttpsServer } from 'node:https';
import { networkInterfaces } from 'node:os';
import { buildApp, type JumpseatApp } from './api/app.ts';
import { loginUrl, reachableUrls, serverUrl } from './api/urls.ts';
import { type Auth, openAuth } from './auth/open-auth.ts';
import { importLine } from './auth/token-import.ts';
import { type Config, loadConfig } from './config/config.ts';
import { ConfigError, HelpRequested } from './config/config-error.ts';
import { PostgresDatabase } from './database/postgres-database.ts';
import { migratePostgres } from './database/postgres-migrations.ts';
import { POSTGRES_MIGRATIONS } from './database/schema.ts';
import { placementLines } from './launch/placement-banner.ts';
import { capacityLine, raiseDescriptorLimit } from './ops/descriptor-limit.ts';
import { dialectsLine, pwshVersion } from './ops/dialect-banner.ts';
import { reloadTlsOnHangup } from './ops/tls-reload.ts';
import { locatePwsh } from './pty/pwsh-executable.ts';

/** A configuration the user must fix, like a usage error of any command-line tool. */
const EXIT_CONFIG = 2;
const EXIT_FAILURE = 1;
/** A shutdown slower than this is stuck; leave rather than hang the terminal. */
const SHUTDOWN_GRACE_MS = 10_000;

function fail(message: string, exitCode: number): never {
  process.stderr.write(`jumpseat: ${message}\n`);
  process.exit(exitCode);
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function readConfig(argv: readonly string[], usageName: string): Config {
  try {
    return loadConfig(argv, process.env);
  } catch (error) {
    if (error instanceof HelpRequested) {
      process.stdout.write(error.usage.replace(/^Usage: jumpseat /, `Usage: ${usageName} `));
      process.exit(0);
    }
    if (error instanceof ConfigError) fail(error.message, EXIT_CONFIG);
    throw error;
  } finally {
    // Read once; shells and child processes must never inherit it.
    delete process.env.JUMPSEAT_TOKEN;
  }
}

/** Tokens, browser credentials and live tickets: in the data dir, or shared in the database. */
async function openAuthOrExit(
  config: Config,
  database: PostgresDatabase | undefined,
): Promise<Auth> {
  try {
    return await openAuth({
      dataDir: config.dataDir,
      adminToken: config.adminToken,
      ...(database === undefined ? {} : { database }),
    });
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, EXIT_CONFIG);
    if (database !== undefined) {
      await database.close();
      fail(
        `cannot use the tokens in the database ${database.url.masked}: ${reasonOf(error)}`,
        EXIT_FAILURE,
      );
    }
    throw error;
  }
}

/**
 * `--database`: PostgreSQL, reached and brought to this code's schema before anything starts
 * (replicas starting together take turns: postgres-migrations.ts). Unreachable at start is a
 * failure to start (an orchestrator restarts the replica); unreachable later is survived.
 */
async function openDatabase(config: Config): Promise<PostgresDatabase | undefined> {
  if (config.database === null) return undefined;
  const database = new PostgresDatabase(config.database);
  try {
    await migratePostgres(database, POSTGRES_MIGRATIONS);
  } catch (error) {
    await database.close();
    fail(`cannot use the database ${config.database.masked}: ${reasonOf(error)}`, EXIT_FAILURE);
  }
  return database;
}

function closeOnSignals(app: JumpseatApp): void {
  let closing = false;
  const close = (): void => {
    // A second Ctrl-C means "now".
    if (closing) process.exit(EXIT_FAILURE);
    closing = true;
    setTimeout(
      () => fail('shutdown took too long; exiting anyway', EXIT_FAILURE),
      SHUTDOWN_GRACE_MS,
    ).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => fail(`shutdown failed: ${reasonOf(error)}`, EXIT_FAILURE),
    );
  };
  process.on('SIGINT', close);
  process.on('SIGTERM', close);
}

/** Runs the server until a signal ends it; `usageName` is how `--help` names the command. */
export async function serve(argv: readonly string[], usageName = 'jumpseat'): Promise<void> {
  const config = readConfig(argv, usageName);
  const database = await openDatabase(config);
  const { tokens, browsers, tickets, imported } = await openAuthOrExit(config, database);
  // Before any shell: the shells that fit are counted from the raised limit.
  const descriptors = raiseDescriptorLimit();
  // Loaded only once the configuration is valid: it brings the native PTY addon with it.
  const { createToolService } = await import('./tool/create-tool-service.ts');
  // A pure control plane runs no shell of its own: every shell runs on a joined host.
  const local = createToolService(config, config.localShells ? {} : { maxShells: 0 });
  const control = config.localShells
    ? undefined
    : await (await import('./control/control-plane.ts')).createControlPlane(
        config,
        local,
        database,
      );
  const tools = control?.tools ?? local;
  // Replicas on one database reach each other's hosts (docs/high-availability.md).
  const replicas =
    control === undefined || database === undefined
      ? undefined
      : await (await import('./control/replicas.ts')).Replicas.open(
          database,
          control.directory,
          (line) => process.stderr.write(`jumpseat: ${line}\n`),
        );
  // Asked while the server starts, for the banner's dialects line.
  const pwshPath = tools.dialects().includes('pwsh')
    ? locatePwsh(config.pwshPath, process.env)
    : null;
  const pwshVersionRead = pwshPath === null ? Promise.resolve(null) : pwshVersion(pwshPath);
  // A run killed without shutting down may have left unsandboxed shells' daemons behind.
  const swept = await tools.placement.launcher.sweepLeftovers();
  // Their private dirs too (under the data dir), once nothing of them runs any more.
  const sweptDirs = tools.privateDirs.sweep();
  const app = buildApp({
    config,
    tools,
    tokens,
    browsers,
    tickets,
    ...(control === undefined ? {} : { control }),
    ...(database === undefined ? {} : { database }),
    ...(replicas === undefined ? {} : { replicas }),
  });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close().catch(() => undefined);
    fail(`cannot listen on ${config.host}:${config.port}: ${reasonOf(error)}`, EXIT_FAILURE);
  }
  // Before the banner: whoever reads it may stop the server at once, and must get a graceful
  // stop (exit 0), not the default end by signal.
  closeOnSignals(app);
  // With --tls-cert the server is an https.Server (app.ts): renewed files load on SIGHUP.
  if (config.tls !== null) reloadTlsOnHangup(app.server as unknown as HttpsServer, config.tls);
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const scheme = config.tls === null ? 'http' : 'https';
  const listening = serverUrl(config.host, port, { scheme, basePath: '/' });
  process.stdout.write(`jumpseat listening on ${listening}\n`);
  // Where people reach it: the public URL, or on 0.0.0.0 this machine's addresses, under the
  // base path.
  const reachable = reachableUrls(config.host, port, config.publicUrl, networkInterfaces(), {
    scheme,
    basePath: config.basePath,
  });
  const base = reachable[0] ?? listening;
  if (reachable.length > 1 || base !== listening) {
    process.stdout.write(`open: ${reachable.join('  ')}\n`);
  }
  process.stdout.write(`${loginLine(config, base)}\n`);
  if (control !== undefined) {
    process.stdout.write(
      `shells: on joined hosts only (--local-shells off); a host joins with: JUMPSEAT_TOKEN=<host token> jumpseat host --join ${base}\n`,
    );
  } else {
    for (const line of placementLines(tools.placement, config)) process.stdout.write(`${line}\n`);
  }
  process.stdout.write(`${capacityLine(descriptors)}\n`);
  if (database !== undefined) process.stdout.write(`database: ${database.url.masked}\n`);
  if (imported !== undefined) process.stdout.write(`${importLine(imported)}\n`);
  if (replicas !== undefined) {
    // The listening address unless told otherwise; on a wildcard, this machine's first.
    const relayUrl =
      config.replicaUrl ??
      reachableUrls(config.host, port, null, networkInterfaces(), {
        scheme,
        basePath: config.basePath,
      })[0] ??
      listening;
    await replicas.start(relayUrl);
    process.stdout.write(`replica: ${replicas.id} (the other replicas reach it at ${relayUrl})\n`);
  }
  if (tools.placement.walls !== null) process.stdout.write(`${tools.placement.walls}\n`);
  if (swept > 0)
    process.stdout.write(`ended ${swept} processes an earlier run's shells left running\n`);
  if (sweptDirs > 0)
    process.stdout.write(`removed ${sweptDirs} private dirs an earlier run's shells left\n`);
  // Last: the lines above keep their places for whoever reads them by position.
  process.stdout.write(`${dialectsLine(tools.dialects(), await pwshVersionRead)}\n`);
}

/**
 * The banner's login line: a URL that logs in only for a token the server generated; a token
 * the user gave (environment or file) is theirs and never echoed, into logs or elsewhere.
 */
function loginLine(config: Config, base: string): string {
  if (config.adminTokenSource === 'data-dir') return `login: ${loginUrl(base, config.adminToken)}`;
  const from = config.adminTokenSource === 'env' ? 'JUMPSEAT_TOKEN' : 'the token file';
  return `login: ${base}login?token=<the admin token from ${from}>`;
}

/** Runs `serve`, turning an unexpected failure into one line and exit status 1. */
export function serveOrExit(argv: readonly string[], usageName?: string): void {
  serve(argv, usageName).catch((error: unknown) => fail(reasonOf(error), EXIT_FAILURE));
}
