/**
 * `npm start`: reads the configuration, starts the engine and the HTTP server, prints where
 * to connect, and closes everything (every shell included) on SIGINT or SIGTERM.
 */
import { buildApp, type JumpseatApp } from './api/app.ts';
import { loginUrl, serverUrl } from './api/urls.ts';
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

function readConfig(): Config {
  try {
    return loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof HelpRequested) {
      process.stdout.write(error.usage);
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

async function main(): Promise<void> {
  const config = readConfig();
  const tokens = openTokens(config);
  // Loaded only once the configuration is valid: it brings the native PTY addon with it.
  const { createToolService } = await import('./tool/create-tool-service.ts');
  const app = buildApp({ config, tools: createToolService(config), tokens });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close().catch(() => undefined);
    fail(`cannot listen on ${config.host}:${config.port}: ${reasonOf(error)}`, EXIT_FAILURE);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const base = serverUrl(config.host, port);
  process.stdout.write(`jumpseat listening on ${base}\n`);
  process.stdout.write(`login: ${loginUrl(base, config.adminToken)}\n`);
  closeOnSignals(app);
}

main().catch((error: unknown) => fail(reasonOf(error), EXIT_FAILURE));
