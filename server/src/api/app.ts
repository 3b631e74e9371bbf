/**
 * Builds the HTTP server: Fastify with TypeBox schemas and one named plugin per concern
 * (errors, body, auth, lifecycle, agent, MCP, supervisor, tokens, login, web app, metrics,
 * OpenAPI).
 */
import type { IncomingMessage } from 'node:http';
import type { ServerOptions } from 'node:https';
import { join } from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { type BrowserCredentials, BrowserSessions } from '../auth/browser-sessions.ts';
import { LiveTickets } from '../auth/live-tickets.ts';
import type { TokenStore } from '../auth/token-store.ts';
import type { Config } from '../config/config.ts';
import type { ControlPlane } from '../control/control-plane.ts';
import { linkEndpoint } from '../control/link-endpoint.ts';
import { RemoteViewers } from '../control/remote-viewers.ts';
import { replicaEndpoint } from '../control/replica-endpoint.ts';
import type { Replicas } from '../control/replicas.ts';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import { JUMPSEAT_ERR_BAD_REQUEST, JumpseatError } from '../errors.ts';
import { LiveHub } from '../live/live-hub.ts';
import { revokedReason } from '../live/revoked-reason.ts';
import { Metrics } from '../ops/metrics.ts';
import { StorageHealth } from '../ops/storage-health.ts';
import { History } from '../store/history.ts';
import type { EngineToolService } from '../tool/create-tool-service.ts';
import { SPILL_DIR_NAME } from '../tool/spill-files.ts';
import { agentApi } from './agent-api.ts';
import { authHook } from './auth-hook.ts';
import { stripBasePath } from './base-path-routing.ts';
import { BODY_LIMIT_BYTES, errorReplies } from './error-replies.ts';
import { fullOutputApi } from './full-output-api.ts';
import { historyApi } from './history-api.ts';
import { hostsApi } from './hosts-api.ts';
import { jsonBody } from './json-body.ts';
import { lifecycle } from './lifecycle.ts';
import { liveApi, websocketSupport } from './live-api.ts';
import { type LogSettings, loggerOptions } from './logging.ts';
import { login } from './login.ts';
import { mcpApi, mcpOriginCheck } from './mcp-api.ts';
import { meApi } from './me-api.ts';
import { metricsApi } from './metrics-api.ts';
import { openApiGenerator, openApiRoute } from './openapi.ts';
import { describeSchemaErrors } from './schema-errors.ts';
import { validatorCompiler } from './schema-validation.ts';
import { shareApi } from './share-api.ts';
import { shellApi } from './shell-api.ts';
import { shellPrivacy } from './shell-privacy.ts';
import { storageApi } from './storage-api.ts';
import { supervisorApi } from './supervisor-api.ts';
import { tokenApi } from './token-api.ts';
import { webApp } from './web-app.ts';
import { webSettingsApi } from './web-settings-api.ts';

export interface AppOptions {
  readonly config: Config;
  readonly tools: EngineToolService;
  readonly tokens: TokenStore;
  /** Overrides `config.logLevel`; a destination captures the log lines (tests). */
  readonly logger?: LogSettings;
  /**
   * This server's metrics; created when not given. The engine's calls and shells are
   * observed here; the live hub reports viewers' traffic to the same object.
   */
  readonly metrics?: Metrics;
  /** The durable history; opened in `config.dataDir` when not given, closed with the app. */
  readonly history?: History;
  /** How often a running MCP call with a progress token reports progress (tests shorten it). */
  readonly mcpProgressIntervalMs?: number;
  /** Time between keep-alive comments of a running 2026-07-28 MCP call (tests shorten it). */
  readonly mcpKeepAliveMs?: number;
  /** Whether the data dir takes writes; created when not given (warnings go to stderr). */
  readonly health?: StorageHealth;
  /** How long a viewer past its buffer bound may stay unread before it is closed (tests shorten it). */
  readonly liveStallCloseMs?: number;
  /** The joined hosts and their calls (`--local-shells off`); absent: shells run here. */
  readonly control?: ControlPlane;
  /** Browser credentials; the data dir's file when not given (auth/open-auth.ts). */
  readonly browsers?: BrowserCredentials;
  /** Live tickets; signed with a secret of this process when not given (auth/open-auth.ts). */
  readonly tickets?: LiveTickets;
  /** `--database`: the control plane's PostgreSQL, opened and migrated; closed with the app. */
  readonly database?: PostgresDatabase;
  /** With `control` and `database`: this replica among the others (stopped with the app). */
  readonly replicas?: Replicas;
}

/**
 * Longer than any valid agent id on purpose: an over-long id still reaches the route and is
 * told what an agent id is, instead of a bare "no route".
 */
const MAX_URL_PARAM_CHARS = 1024;

function httpsOption(config: Config): { readonly https?: ServerOptions } {
  return config.tls === null ? {} : { https: { cert: config.tls.cert, key: config.tls.key } };
}

/** How long one plugin's registration may take before the start fails. */
const PLUGIN_TIMEOUT_MS = 120_000;

export function buildApp(options: AppOptions) {
  const { config, tools, tokens } = options;
  const app = Fastify({
    logger: loggerOptions(options.logger ?? { level: config.logLevel }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Fastify's own 503 body is not our error shape; the lifecycle plugin answers instead.
    return503OnClosing: false,
    // Registering compiles every route's schemas: 10 s (Fastify's default) was too little on
    // a loaded two-core machine ("Plugin did not start in time"). A plugin that truly hangs
    // still fails the start.
    pluginTimeout: PLUGIN_TIMEOUT_MS,
    schemaErrorFormatter: (errors, part) =>
      new JumpseatError(JUMPSEAT_ERR_BAD_REQUEST, describeSchemaErrors(errors, part)),
    routerOptions: { maxParamLength: MAX_URL_PARAM_CHARS },
    // Off unless proxies are named: X-Forwarded-* from anyone else must not count.
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    // HTTPS (and so WSS) with --tls-cert; serve.ts swaps in renewed files on SIGHUP. Spread,
    // so the instance keeps the http.Server type every plugin is written against (an
    // https.Server is one at runtime: Node builds it from http.Server's parts).
    ...httpsOption(config),
    ...(config.basePath === '/'
      ? {}
      : {
          rewriteUrl: (request: IncomingMessage) =>
            stripBasePath(request.url ?? '/', config.basePath),
        }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate('basePath', config.basePath);
  app.setValidatorCompiler(validatorCompiler);
  const metrics =
    options.metrics ??
    new Metrics({
      maxTimeoutMs: Math.max(config.dialects.bash.timeoutMs, config.dialects.pwsh.timeoutMs),
    });
  app.decorate('metrics', metrics);
  const observed = metrics.observe(tools);
  const control = options.control;
  if (control !== undefined) metrics.observeHosts(() => control.directory.heldList());
  const logged = tools.onCallFinished((call) => app.log.info({ call }, 'call finished'));
  app.addHook('onClose', async () => {
    observed.dispose();
    logged.dispose();
  });
  const health = options.health ?? new StorageHealth();
  health.probeIn(config.dataDir);
  app.decorate('storageHealth', health);
  const history =
    options.history ??
    new History({
      dataDir: config.dataDir,
      settings: config.history,
      registry: tools.registry,
      authEvents: tokens.onAuthEvent,
      ...(options.control === undefined
        ? {}
        : { liveShell: (id: string) => options.control?.directory.findShell(id)?.info }),
      onError: (error, what) => app.log.error({ err: error }, `${what} failed`),
      health,
      ...(options.database === undefined ? {} : { database: options.database }),
    });
  app.decorate('history', history);
  // The shells of joined hosts are recorded here, from their links (a lost host's stay whole):
  // those whose host is linked to this replica; another replica's are its to record.
  const followed = options.control?.directory.onShellHeld.on((shell) =>
    history.follow(shell.story),
  );
  // A host whose link moved to another replica: that one records its shells from now on.
  const letGo = options.control?.directory.onLetGo.on((host) => {
    for (const shell of host.shells.values()) void history.unfollow(shell.id);
  });
  app.addHook('onClose', async () => {
    followed?.dispose();
    letGo?.dispose();
  });
  // The stop's time is each own shell's end, on record before ending them all takes its time.
  app.addHook('preClose', async () => history.stopping());
  const storageReports = [
    tokens.onSave.on((error) =>
      error === null ? health.recovered('tokens') : health.failed('tokens', error, 'tokens file'),
    ),
    tools.spill.onSave.on((error) =>
      error === null
        ? health.recovered('outputs')
        : health.failed('outputs', error, 'saved full output'),
    ),
  ];
  // A root hook runs after every plugin's: the shells the lifecycle ends are recorded as closed.
  app.addHook('onClose', async () => {
    for (const report of storageReports) report.dispose();
    health.close();
    await tokens.flush();
    await history.close();
    // Last: the stores above write what they hold into it as they close.
    await options.database?.close();
  });

  app.register(openApiGenerator);

  app.register(errorReplies);
  app.register(jsonBody);
  app.register(lifecycle, {
    tools,
    health,
    ...(options.database === undefined ? {} : { database: options.database }),
  });
  app.register(websocketSupport);
  app.register(mcpOriginCheck, { publicUrl: config.publicUrl });
  // Browsers sign in with a credential of their own, traded for a token (see browser-sessions.ts).
  const browsers = options.browsers ?? BrowserSessions.open(config.dataDir);
  browsers
    .prune((tokenId) => tokens.checkId(tokenId) !== undefined)
    .catch((error: unknown) => app.log.warn({ err: error }, 'pruning browser credentials failed'));
  const tickets = options.tickets ?? new LiveTickets();
  app.register(authHook, { tokens, browsers, tickets });
  app.register(shellPrivacy, { tools, history });
  app.register(agentApi, { tools });
  app.register(mcpApi, {
    tools,
    ...(options.mcpProgressIntervalMs === undefined
      ? {}
      : { progressIntervalMs: options.mcpProgressIntervalMs }),
    ...(options.mcpKeepAliveMs === undefined ? {} : { keepAliveMs: options.mcpKeepAliveMs }),
    sessionsPerToken: config.limits.mcpSessionsPerToken,
  });
  app.register(supervisorApi, { tools, history });
  app.register(historyApi, {
    history,
    isShareLink: (tokenId) => tokens.isShareLink(tokenId),
  });
  app.register(fullOutputApi, {
    history,
    dir: join(config.dataDir, SPILL_DIR_NAME),
    remote: control === undefined ? null : { directory: control.directory, files: control.files },
  });
  const hub = new LiveHub(
    tools.registry,
    metrics,
    {
      controlIdleMs: config.controlIdleMs,
      inputPendingMaxBytes: config.limits.inputPendingMaxBytes,
      ...(options.liveStallCloseMs === undefined ? {} : { stallCloseMs: options.liveStallCloseMs }),
    },
    { perToken: config.limits.livePerToken, perShell: config.limits.livePerShell },
  );
  const remoteViewers =
    control === undefined
      ? null
      : new RemoteViewers(
          control.directory,
          (tokenId) => hub.admitRelayed(tokenId),
          (tokenId) => hub.releaseRelayed(tokenId),
        );
  if (control !== undefined) hub.showRemote(control.directory);
  app.addHook('onClose', async () => remoteViewers?.close());
  // A revoked token's holder is disconnected at once, wherever they watch (revoked here or on
  // another replica); every browser signed in with it, and every ticket asked for with it,
  // stands for the revoked token, so they stop working too.
  const revocations = tokens.onRevoke.on((event) => {
    options.control?.directory.disconnectToken(event.tokenId);
    const reason = revokedReason({ name: event.name, by: event.by, link: event.link });
    hub.disconnectToken(event.tokenId, reason);
    remoteViewers?.disconnectToken(event.tokenId, reason);
  });
  app.addHook('onClose', async () => revocations.dispose());
  app.register(liveApi, { hub, publicUrl: config.publicUrl, remote: remoteViewers });
  const replicas = options.replicas;
  app.register(linkEndpoint, {
    directory: options.control?.directory ?? null,
    calls: options.control?.calls ?? null,
    viewers: remoteViewers,
    files: options.control?.files ?? null,
    tap: replicas?.links ?? null,
  });
  if (control !== undefined && remoteViewers !== null && replicas !== undefined) {
    app.register(replicaEndpoint, {
      parts: { ...control, viewers: remoteViewers },
      replicas,
    });
  }
  app.register(hostsApi, { directory: options.control?.directory ?? null });
  app.register(shellApi, { tools, history });
  app.register(shareApi, {
    tools,
    tokens,
    publicUrl: config.publicUrl,
    basePath: config.basePath,
  });
  app.register(webSettingsApi, { config });
  app.register(meApi, { tokens });
  app.register(tokenApi, { tokens });
  app.register(login, { tokens, browsers, tickets });
  app.register(webApp);
  app.register(metricsApi, { metrics });
  app.register(storageApi, { health });
  app.register(openApiRoute);
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** This server's metrics (see AppOptions.metrics). */
    metrics: Metrics;
    /** This server's durable history (see AppOptions.history). */
    history: History;
    /** Whether the data dir takes writes (see AppOptions.health). */
    storageHealth: StorageHealth;
    /** `--base-path`: the prefix browsers see this server under (`/` for none). */
    basePath: string;
  }
}

export type JumpseatApp = ReturnType<typeof buildApp>;
