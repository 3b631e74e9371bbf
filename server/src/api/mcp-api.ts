/**
 * The tools over the Model Context Protocol at `/mcp` (Streamable HTTP, SDK sessions). The
 * agent is the one an agent token names; an admin token names it in `X-Jumpseat-Agent`.
 * Cancelling a call (MCP `notifications/cancelled`, or its HTTP request closing) cancels it
 * exactly as a closed HTTP API request does: the shell is reset and the result discarded.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AGENT_ID_REGEX } from '../../../shared/src/api.ts';
import type { Principal } from '../auth/principal.ts';
import { JUMPSEAT_ERR_BAD_REQUEST, JUMPSEAT_ERR_FORBIDDEN, JumpseatError } from '../errors.ts';
import type { ToolService } from '../tool/tool-service.ts';
import type { McpCaller, McpSession } from './mcp-session.ts';
import { AGENT_ID_RULE } from './schema-errors.ts';

export interface McpApiOptions {
  readonly tools: ToolService;
}

/** The header an admin token names its agent with. */
export const AGENT_HEADER = 'x-jumpseat-agent';
const SESSION_HEADER = 'mcp-session-id';

/** A session unused this long (and with no call in flight) is closed; clients re-initialize. */
const SESSION_IDLE_MS = 60 * 60 * 1000;
/** How often idle sessions are looked for. */
const SESSION_SWEEP_MS = 60 * 1000;
/** Open sessions kept at most; past it the least recently used idle one is closed. */
const MAX_SESSIONS = 1000;

/** The MCP SDK (with zod) takes about half a second to load: only the first MCP request pays. */
let sessionModule: Promise<typeof import('./mcp-session.ts')> | undefined;
function loadSessionModule(): Promise<typeof import('./mcp-session.ts')> {
  sessionModule ??= import('./mcp-session.ts');
  return sessionModule;
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
    return { tokenId: principal.tokenId, agent: principal.agent };
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

export const mcpApi = fp<McpApiOptions>(
  async (app, { tools }) => {
    const sessions = new Map<string, McpSession>();

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

    function makeRoom(): void {
      if (sessions.size < MAX_SESSIONS) return;
      const idle = [...sessions].filter(([, session]) => !session.busy);
      idle.sort(([, a], [, b]) => a.lastSeen - b.lastSeen);
      const oldest = idle[0];
      if (oldest !== undefined) drop(oldest[0], oldest[1]);
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
        const { McpSession } = await loadSessionModule();
        session = new McpSession(caller, tools);
        await session.connect();
      }

      const ids = request.method === 'POST' ? requestIds(request.body) : [];
      const gone = new Error('the client closed the request');
      const cancelIfGone = (): void => {
        if (!reply.raw.writableFinished) for (const id of ids) session.cancel(id, gone);
      };
      reply.raw.on('close', cancelIfGone);
      reply.hijack();
      await session.handle(request.raw, reply.raw, request.body);

      const id = session.id;
      if (id !== undefined && !sessions.has(id) && request.headers[SESSION_HEADER] === undefined) {
        makeRoom();
        sessions.set(id, session);
      } else if (id === undefined) {
        await session.close();
      }
      if (request.method === 'DELETE' && id !== undefined) sessions.delete(id);
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

    app.addHook('preClose', async () => {
      clearInterval(sweep);
      if (sessions.size === 0) return;
      // Calls answer "shutting down" rather than vanish; then the sessions end.
      const { McpShutdown } = await loadSessionModule();
      const shutdown = new McpShutdown('jumpseat is shutting down; the call was cancelled');
      await Promise.all([...sessions.values()].map((session) => session.endCalls(shutdown)));
    });
    app.addHook('onClose', async () => {
      await Promise.all([...sessions.values()].map((session) => session.close()));
      sessions.clear();
    });
  },
  {
    name: 'jumpseat-mcp',
    fastify: '5.x',
    encapsulate: true,
    dependencies: ['jumpseat-auth', 'jumpseat-json-body', 'jumpseat-errors'],
  },
);
