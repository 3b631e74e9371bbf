/**
 * The tools over the Model Context Protocol at `/mcp` (Streamable HTTP, SDK sessions). The
 * agent is the one an agent token names; an admin token names it in `X-Jumpseat-Agent`.
 * Cancelling a call (MCP `notifications/cancelled`, or its HTTP request closing) cancels it
 * exactly as a closed HTTP API request does: the shell is reset and the result discarded.
 */
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AGENT_ID_REGEX } from '../../../shared/src/api.ts';
import type { Principal } from '../auth/principal.ts';
import { DEFAULT_MCP_SESSIONS_PER_TOKEN } from '../config/connection-limits.ts';
import {
  JUMPSEAT_ERR_BAD_REQUEST,
  JUMPSEAT_ERR_FORBIDDEN,
  JUMPSEAT_ERR_NOT_FOUND,
  JUMPSEAT_ERR_TOO_MANY_MCP_SESSIONS,
  JumpseatError,
} from '../errors.ts';
import type { ToolService } from '../tool/tool-service.ts';
import {
  KEEP_ALIVE_INTERVAL_MS,
  type McpCaller,
  McpCalls,
  McpShutdown,
  PROGRESS_INTERVAL_MS,
} from './mcp-calls.ts';
import type { McpSession } from './mcp-session.ts';
import { foreignOrigin } from './request-origin.ts';
import { AGENT_ID_RULE } from './schema-errors.ts';
import { sendWebResponse, toWebRequest } from './web-exchange.ts';

export interface McpApiOptions {
  readonly tools: ToolService;
  /** How often a running call with a progress token reports progress (PROGRESS_INTERVAL_MS). */
  readonly progressIntervalMs?: number;
  /** Open sessions one token may have (`--mcp-sessions-per-token`). */
  readonly sessionsPerToken?: number;
  /** Time between keep-alive comments of a running 2026-07-28 call (KEEP_ALIVE_INTERVAL_MS). */
  readonly keepAliveMs?: number;
}

/** The header an admin token names its agent with. */
export const AGENT_HEADER = 'x-jumpseat-agent';
const SESSION_HEADER = 'mcp-session-id';

/** A session unused this long (and with no call in flight) is closed; clients re-initialize. */
const SESSION_IDLE_MS = 60 * 60 * 1000;
/** How often idle sessions are looked for. */
const SESSION_SWEEP_MS = 60 * 1000;
/**
 * Open sessions kept at most in all. Past it, or past the caller's own cap, the caller's own
 * least recently used idle session is closed: never another token's.
 */
const MAX_SESSIONS = 1000;

/** The MCP SDK (with zod) takes about half a second to load: only the first MCP request pays. */
let mcpModules: Promise<McpModules> | undefined;
interface McpModules {
  readonly sdk: typeof import('@modelcontextprotocol/server');
  readonly session: typeof import('./mcp-session.ts');
  readonly tools: typeof import('./mcp-tools.ts');
}
function loadMcpModules(): Promise<McpModules> {
  mcpModules ??= Promise.all([
    import('@modelcontextprotocol/server'),
    import('./mcp-session.ts'),
    import('./mcp-tools.ts'),
  ]).then(([sdk, session, tools]) => ({ sdk, session, tools }));
  return mcpModules;
}

/** JSON-RPC's answer to a session id we do not hold: the client must initialize anew. */
const SESSION_NOT_FOUND = {
  jsonrpc: '2.0',
  error: { code: -32001, message: 'Session not found' },
  id: null,
} as const;

/** Who the request acts for, or a refusal (the auth hook turns it into 403). */
function callerOf(principal: Principal, request: FastifyRequest): McpCaller | string {
  const named = request.headers[AGENT_HEADER];
  const header = typeof named === 'string' && named !== '' ? named : undefined;
  if (principal.role === 'agent') {
    if (header !== undefined && header !== principal.agent) {
      return `this token may only call agent "${principal.agent}"`;
    }
    return {
      tokenId: principal.tokenId,
      agent: principal.agent,
      ...(principal.labels === undefined ? {} : { labels: principal.labels }),
    };
  }
  if (principal.role !== 'admin') return `role "${principal.role}" may not make tool calls`;
  if (header === undefined) {
    throw new JumpseatError(
      JUMPSEAT_ERR_BAD_REQUEST,
      'an admin token must name the agent in the X-Jumpseat-Agent header',
    );
  }
  if (!AGENT_ID_REGEX.test(header)) {
    throw new JumpseatError(
      JUMPSEAT_ERR_BAD_REQUEST,
      `X-Jumpseat-Agent ${JSON.stringify(header)} is not valid: ${AGENT_ID_RULE}`,
    );
  }
  return { tokenId: principal.tokenId, agent: header };
}

function refuseNonCallers(principal: Principal, request: FastifyRequest): string | undefined {
  const caller = callerOf(principal, request);
  return typeof caller === 'string' ? caller : undefined;
}

/** The ids of the JSON-RPC requests (not notifications) in a POST body. */
function requestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message: unknown) => {
    if (typeof message !== 'object' || message === null) return [];
    if (!('method' in message) || !('id' in message)) return [];
    const id = message.id;
    return typeof id === 'string' || typeof id === 'number' ? [id] : [];
  });
}

/**
 * MCP: servers MUST validate `Origin` on every request (DNS rebinding, foreign pages), and
 * answer 403 when it is present and wrong. Registered before the auth hook, so this holds for
 * requests without a token too.
 */
export const mcpOriginCheck = fp<{ readonly publicUrl: string | null }>(
  async (app, { publicUrl }) => {
    app.addHook('onRequest', async (request) => {
      if (request.routeOptions.url !== '/mcp') return;
      const origin = foreignOrigin(request, publicUrl);
      if (origin !== undefined) {
        throw new JumpseatError(
          JUMPSEAT_ERR_FORBIDDEN,
          `MCP request refused: origin ${JSON.stringify(origin)} is not this server`,
        );
      }
    });
  },
  { name: 'jumpseat-mcp-origin', fastify: '5.x', dependencies: ['jumpseat-errors'] },
);

export const mcpApi = fp<McpApiOptions>(
  async (
    app,
    {
      tools,
      progressIntervalMs,
      sessionsPerToken = DEFAULT_MCP_SESSIONS_PER_TOKEN,
      keepAliveMs = KEEP_ALIVE_INTERVAL_MS,
    },
  ) => {
    const sessions = new Map<string, McpSession>();
    const interval = progressIntervalMs ?? PROGRESS_INTERVAL_MS;
    /** The calls of the 2026-07-28 exchanges (sessions keep their own). */
    const modernCalls = new McpCalls();
    /** Who each modern exchange acts for, found by the SDK's factory through its Request. */
    const callers = new WeakMap<Request, McpCaller>();
    let modern: McpHttpHandler | undefined;

    async function modernHandler(): Promise<McpHttpHandler> {
      const { sdk, tools: mcpTools } = await loadMcpModules();
      modern ??= sdk.createMcpHandler(
        (context) => {
          const caller =
            context.requestInfo === undefined ? undefined : callers.get(context.requestInfo);
          if (caller === undefined) throw new Error('an MCP exchange without a caller');
          return mcpTools.createMcpToolServer({
            caller,
            tools,
            calls: modernCalls,
            progressIntervalMs: interval,
          });
        },
        // 2025-era traffic is served by the sessions below (they keep notifications/cancelled
        // working across requests); this handler answers only the per-request revision.
        // Always a stream: its headers go out as the call starts and a comment every
        // `keepAliveMs`, so a client's body timeout never ends a long call that sends no
        // progress (the default `auto` would send nothing until the result).
        {
          legacy: 'reject',
          responseMode: 'sse',
          keepAliveMs,
          onerror: (error) => app.log.debug({ err: error }, 'MCP'),
        },
      );
      return modern;
    }

    const sweep = setInterval(() => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (!session.busy && now - session.lastSeen > SESSION_IDLE_MS) drop(id, session);
      }
    }, SESSION_SWEEP_MS);
    sweep.unref();

    function drop(id: string, session: McpSession): void {
      sessions.delete(id);
      void session.close();
    }

    /**
     * Room for one more session of this caller's token, made only from its own sessions (the
     * least recently used idle one); a message saying why when there is none to end.
     */
    function makeRoom(caller: McpCaller): string | null {
      const own = [...sessions].filter(([, session]) => session.caller.tokenId === caller.tokenId);
      if (own.length < sessionsPerToken && sessions.size < MAX_SESSIONS) return null;
      const idle = own.filter(([, session]) => !session.busy);
      idle.sort(([, a], [, b]) => a.lastSeen - b.lastSeen);
      const oldest = idle[0];
      if (oldest !== undefined) {
        drop(oldest[0], oldest[1]);
        return null;
      }
      return own.length >= sessionsPerToken
        ? `this token has ${own.length} MCP sessions open, each with a call running (--mcp-sessions-per-token ${sessionsPerToken}); end one (DELETE /mcp) or wait`
        : `the server holds ${sessions.size} MCP sessions, the most it keeps, and this token has none idle to end; try again later`;
    }

    /** The session a request names, if it belongs to this caller. */
    function sessionFor(request: FastifyRequest, caller: McpCaller): McpSession | undefined {
      const id = request.headers[SESSION_HEADER];
      if (typeof id !== 'string') return undefined;
      const session = sessions.get(id);
      if (session === undefined) return undefined;
      const same =
        session.caller.tokenId === caller.tokenId && session.caller.agent === caller.agent;
      return same ? session : undefined;
    }

    async function handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const principal = request.principal;
      if (principal === null) throw new JumpseatError(JUMPSEAT_ERR_FORBIDDEN, 'no principal');
      const caller = callerOf(principal, request);
      if (typeof caller === 'string') throw new JumpseatError(JUMPSEAT_ERR_FORBIDDEN, caller);

      // The request's connection closing before the answer cancels what it carried.
      const gone = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) gone.abort(new Error('the client closed the request'));
      });
      const webRequest = toWebRequest(request, gone.signal);
      const { sdk, session: sessionModule } = await loadMcpModules();

      if (request.method === 'POST' && !(await sdk.isLegacyRequest(webRequest, request.body))) {
        callers.set(webRequest, caller);
        const handler = await modernHandler();
        await sendWebResponse(reply, await handler.fetch(webRequest, { parsedBody: request.body }));
        return;
      }

      let session: McpSession;
      if (request.headers[SESSION_HEADER] !== undefined) {
        const found = sessionFor(request, caller);
        if (found === undefined) {
          reply.status(404).send(SESSION_NOT_FOUND);
          return;
        }
        session = found;
      } else {
        // No session yet: only `initialize` may come; the SDK answers anything else itself.
        session = new sessionModule.McpSession(caller, tools, interval);
        await session.connect();
      }

      const ids = request.method === 'POST' ? requestIds(request.body) : [];
      gone.signal.addEventListener('abort', () => {
        for (const id of ids) session.cancel(id, gone.signal.reason as Error);
      });
      const response = await session.handle(webRequest, request.body);

      const id = session.id;
      if (id !== undefined && !sessions.has(id) && request.headers[SESSION_HEADER] === undefined) {
        const full = makeRoom(caller);
        if (full !== null) {
          await session.close();
          throw new JumpseatError(JUMPSEAT_ERR_TOO_MANY_MCP_SESSIONS, full);
        }
        sessions.set(id, session);
      } else if (id === undefined) {
        await session.close();
      }
      if (request.method === 'DELETE' && id !== undefined) sessions.delete(id);
      await sendWebResponse(reply, response);
    }

    const config = { refuse: refuseNonCallers };
    const schema = { hide: true };
    app.post('/mcp', { config, schema }, handle);
    app.delete('/mcp', { config, schema }, handle);
    // No server-initiated messages: the optional GET stream is not offered (the SDK client
    // takes 405 as "none").
    app.get('/mcp', { config, schema }, async (_request, reply) =>
      reply
        .status(405)
        .header('allow', 'POST, DELETE')
        .send({
          error: { code: 'METHOD_NOT_ALLOWED', message: 'use POST (or DELETE to end a session)' },
        }),
    );

    // No OAuth here: tokens are minted by jumpseat (POST /api/tokens). A 401 at the discovery
    // documents would send token-less MCP clients into an OAuth flow; 404 says "none".
    app.get(
      '/.well-known/*',
      { config: { public: true }, schema: { hide: true } },
      async (request) => {
        throw new JumpseatError(
          JUMPSEAT_ERR_NOT_FOUND,
          `${request.url.split('?')[0] ?? request.url}: jumpseat has no OAuth or other discovery documents; send "Authorization: Bearer <token>" (a token from POST /api/tokens or jumpseat token create)`,
        );
      },
    );

    app.addHook('preClose', async () => {
      clearInterval(sweep);
      // Calls answer "shutting down" rather than vanish (their answers are sent before the
      // server waits for its connections to close); then, on close, the sessions end.
      const shutdown = new McpShutdown('jumpseat is shutting down; the call was cancelled');
      await Promise.all([
        modernCalls.endAll(shutdown),
        ...[...sessions.values()].map((session) => session.endCalls(shutdown)),
      ]);
    });
    app.addHook('onClose', async () => {
      await Promise.all([...sessions.values()].map((session) => session.close()));
      sessions.clear();
      await modern?.close();
    });
  },
  {
    name: 'jumpseat-mcp',
    fastify: '5.x',
    encapsulate: true,
    dependencies: ['jumpseat-auth', 'jumpseat-json-body', 'jumpseat-errors'],
  },
);
