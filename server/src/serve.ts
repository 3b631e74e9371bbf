/**
 * `npm start` and `jumpseat serve`: reads the configuration, starts the engine and the HTTP
 * server, prints where to connect, and on SIGINT or SIGTERM shuts down gracefully: no new
 * requests, in-flight calls cancelled (their callers told so), every shell's process tree
 * ended, then exit 0.
 */
import { networkInterfaces } from 'node:os';
import { buildApp, type JumpseatApp } from './api/app.ts';
import { loginUrl, reachableUrls, serverUrl } from './api/urls.ts';
import { TokenStore } from './auth/token-store.ts';
import { type Config, loadConfig } from './config/config.ts';
import { ConfigError, HelpRequested } from './config/config-error.ts';

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

function openTokens(config: Config): TokenStore {
  try {
    return TokenStore.open(config.dataDir, config.adminToken);
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, EXIT_CONFIG);
    throw error;
  }
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
  const tokens = openTokens(config);
  // Loaded only once the configuration is valid: it brings the native PTY addon with it.
  const { createToolService } = await import('./tool/create-tool-service.ts');
  const tools = createToolService(config);
  // A run killed without shutting down may have left unsandboxed shells' daemons behind.
  const swept = await tools.placement.launcher.sweepLeftovers();
  const app = buildApp({ config, tools, tokens });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close().catch(() => undefined);
    fail(`cannot listen on ${config.host}:${config.port}: ${reasonOf(error)}`, EXIT_FAILURE);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const listening = serverUrl(config.host, port);
  process.stdout.write(`jumpseat listening on ${listening}\n`);
  // Where people reach it: the public URL, or on 0.0.0.0 this machine's addresses.
  const reachable = reachableUrls(config.host, port, config.publicUrl, networkInterfaces());
  const base = reachable[0] ?? listening;
  if (reachable.length > 1 || base !== listening) {
    process.stdout.write(`open: ${reachable.join('  ')}\n`);
  }
  process.stdout.write(`${loginLine(config, base)}\n`);
  const { launcher, limits, warning } = tools.placement;
  process.stdout.write(
    `shells: ${launcher.kind === 'bwrap' ? 'sandboxed (bubblewrap)' : 'unsandboxed'}, ${config.network || launcher.kind === 'off' ? 'network on' : 'loopback only'}, process limit ${limits === 'none' ? 'not enforced' : `by ${limits}`}\n`,
  );
  if (warning !== null) process.stdout.write(`warning: ${warning}\n`);
  if (swept > 0)
    process.stdout.write(`ended ${swept} processes an earlier run's shells left running\n`);
  closeOnSignals(app);
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
