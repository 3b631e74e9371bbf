/**
 * The agent-facing API: one tool call per request (`POST /api/agents/:agent/:dialect`) and
 * the tool definitions. A client that goes away before its answer cancels its call.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import {
  AGENT_ID_PATTERN,
  AGENT_ID_REGEX,
  DIALECTS,
  TOOL_FORMATS,
  ToolCallBody,
  ToolCallReply,
  type ToolFormat,
} from '../../../shared/src/api.ts';
import { canCallAgent, type Principal } from '../auth/principal.ts';
import {
  JUMPSEAT_ERR_BAD_REQUEST,
  JUMPSEAT_ERR_NOT_FOUND,
  JUMPSEAT_ERR_SHUTTING_DOWN,
  JumpseatError,
} from '../errors.ts';
import { PWSH_MISSING_HINT } from '../pty/pwsh-executable.ts';
import type { ToolService } from '../tool/tool-service.ts';
import { ERROR_RESPONSES } from './error-replies.ts';
import { AGENT_ID_RULE } from './schema-errors.ts';
import { checkToolCallBody } from './tool-call-body.ts';
import { formatTools } from './tool-formats.ts';

export interface AgentApiOptions {
  readonly tools: ToolService;
}

const ToolsQuery = Type.Object({
  format: Type.Optional(
    Type.Union(
      TOOL_FORMATS.map((format) => Type.Literal(format)),
      {
        description:
          'anthropic (the default: name, description, input_schema), openai (Chat Completions), ' +
          'openai-responses (Responses API), or json-schema (one JSON Schema document per tool)',
      },
    ),
  ),
});

const ToolCallParams = Type.Object({
  agent: Type.String({ pattern: AGENT_ID_PATTERN }),
  // An unknown or uninstalled dialect was already refused by the route's onRequest hook.
  dialect: Type.Union(DIALECTS.map((dialect) => Type.Literal(dialect))),
});

/** Why a principal may not call this URL's agent. */
function refuseOtherAgents(principal: Principal, request: FastifyRequest): string | undefined {
  const agent = paramOf(request, 'agent');
  if (canCallAgent(principal, agent)) return undefined;
  return principal.role === 'agent'
    ? `this token may only call agent "${principal.agent}"`
    : `role "${principal.role}" may not make tool calls`;
}

const agentApiPlugin: FastifyPluginAsyncTypebox<AgentApiOptions> = async (app, { tools }) => {
  /** Calls waiting for their result, cancelled when the server shuts down. */
  const inFlight = new Set<AbortController>();
  const shutdown = new JumpseatError(
    JUMPSEAT_ERR_SHUTTING_DOWN,
    'jumpseat is shutting down; the call was cancelled',
  );
  app.addHook('preClose', async () => {
    // Server close waits for open requests; a call may run for minutes, so end them now.
    for (const controller of inFlight) controller.abort(shutdown);
  });

  // The definitions are fixed for the server's life (configuration, pwsh found or not):
  // shape them once, not on every request.
  const definitions = tools.definitions();
  const toolsByFormat: Record<ToolFormat, object[]> = {
    anthropic: formatTools(definitions, 'anthropic'),
    openai: formatTools(definitions, 'openai'),
    'openai-responses': formatTools(definitions, 'openai-responses'),
    'json-schema': formatTools(definitions, 'json-schema'),
  };

  app.get(
    '/api/tools',
    {
      schema: {
        summary: 'The tool definitions, in the shape a model API takes',
        querystring: ToolsQuery,
        response: {
          200: Type.Array(Type.Object({}, { additionalProperties: true })),
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request) => toolsByFormat[request.query.format ?? 'anthropic'],
  );

  app.post(
    '/api/agents/:agent/:dialect',
    {
      schema: {
        params: ToolCallParams,
        body: ToolCallBody,
        response: { 200: ToolCallReply, ...ERROR_RESPONSES },
      },
      config: { refuse: refuseOtherAgents },
      // The URL is checked before the body is read: a wrong address is the first thing to fix.
      onRequest: async (request) => {
        checkAgentId(paramOf(request, 'agent'));
        checkDialect(tools, paramOf(request, 'dialect'));
      },
      preValidation: async (request) => checkToolCallBody(request.body),
    },
    async (request, reply) => {
      const { agent, dialect } = request.params;
      const controller = new AbortController();
      // 'close' also follows a completed response; only an unfinished one means the client left.
      const cancelIfGone = (): void => {
        if (!reply.raw.writableFinished) {
          controller.abort(new Error('the client closed the request'));
        }
      };
      reply.raw.on('close', cancelIfGone);
      if (request.raw.socket.destroyed) cancelIfGone();
      inFlight.add(controller);
      try {
        const principal = request.principal as Principal;
        const output = await tools.call(
          agent,
          dialect,
          request.body.command,
          controller.signal,
          principal.role === 'agent' && principal.labels !== undefined
            ? { labels: principal.labels }
            : undefined,
        );
        return { output };
      } catch (error) {
        if (controller.signal.reason === shutdown) {
          // Server close waits for this connection; a kept-alive one would hold it open.
          reply.header('connection', 'close');
          throw shutdown;
        }
        throw error;
      } finally {
        inFlight.delete(controller);
        reply.raw.off('close', cancelIfGone);
      }
    },
  );
};

function checkAgentId(agent: string): void {
  if (!AGENT_ID_REGEX.test(agent)) {
    throw new JumpseatError(
      JUMPSEAT_ERR_BAD_REQUEST,
      `agent id ${JSON.stringify(agent)} is not valid: ${AGENT_ID_RULE}`,
    );
  }
}

function checkDialect(tools: ToolService, name: string): void {
  const available: readonly string[] = tools.dialects();
  if (!available.includes(name)) {
    // The one a user can fix: pwsh is a real dialect whose executable was not found.
    const hint = name === 'pwsh' ? ` (${PWSH_MISSING_HINT})` : '';
    throw new JumpseatError(
      JUMPSEAT_ERR_NOT_FOUND,
      `no dialect ${JSON.stringify(name)} on this server${hint}; available: ${available.join(', ')}`,
    );
  }
}

/** A URL parameter before validation (hooks that run ahead of the schema). */
function paramOf(request: FastifyRequest, name: string): string {
  const params: unknown = request.params;
  if (typeof params !== 'object' || params === null || !(name in params)) return '';
  const value: unknown = Object.getOwnPropertyDescriptor(params, name)?.value;
  return typeof value === 'string' ? value : '';
}

export const agentApi = fp(agentApiPlugin, {
  name: 'jumpseat-agent-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-json-body', 'jumpseat-errors'],
});
