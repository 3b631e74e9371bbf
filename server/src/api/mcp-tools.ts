/**
 * The MCP server the tools are served by, for one caller: its tools are the tool service's
 * dialects with the configured descriptions and input schemas; a call's arguments are
 * checked against that schema; its text content is exactly the HTTP API's `output`; while
 * it runs, a request that carries a progress token gets `notifications/progress` every few
 * seconds, so a client's request timeout (60 s in the SDKs) can follow the call
 * (`resetTimeoutOnProgress`). Both protocol eras (2025 sessions, 2026-07-28 per request)
 * build theirs here.
 */
import {
  type CallToolResult,
  fromJsonSchema,
  type ProgressToken,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { Dialect } from '../../../shared/src/api.ts';
import { JumpseatError } from '../errors.ts';
import { PACKAGE_VERSION } from '../package-root.ts';
import type { ToolService } from '../tool/tool-service.ts';
import { type McpCaller, type McpCalls, McpShutdown } from './mcp-calls.ts';

export interface McpToolsOptions {
  readonly caller: McpCaller;
  readonly tools: ToolService;
  readonly calls: McpCalls;
  readonly progressIntervalMs: number;
  /** Called when a call ends because it was cancelled (the legacy transport ends its stream). */
  readonly onCancelled?: (requestId: string | number) => void;
}

type ArgumentCheck = (args: unknown) => string | undefined;

/** One schema check per tool, compiled once per tool service (the schemas never change). */
const checksByService = new WeakMap<ToolService, Map<string, ArgumentCheck>>();

function argumentChecks(tools: ToolService): Map<string, ArgumentCheck> {
  let checks = checksByService.get(tools);
  if (checks === undefined) {
    checks = new Map();
    for (const { name, input_schema } of tools.definitions()) {
      const schema = fromJsonSchema(input_schema)['~standard'];
      checks.set(name, (args) => {
        const result = schema.validate(args);
        if (result instanceof Promise) return 'the arguments could not be checked';
        return result.issues === undefined
          ? undefined
          : result.issues.map((issue) => issue.message).join('; ');
      });
    }
    checksByService.set(tools, checks);
  }
  return checks;
}

export function createMcpToolServer(options: McpToolsOptions): Server {
  const { tools } = options;
  const server = new Server(
    { name: 'jumpseat', version: PACKAGE_VERSION },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler('tools/list', () => ({ tools: listTools(tools) }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const progressToken = ctx.mcpReq._meta?.progressToken ?? request.params._meta?.progressToken;
    const result = await callTool(options, name, args, ctx, progressToken);
    return server.projectCallToolResult(result, undefined);
  });
  return server;
}

function listTools(tools: ToolService): Tool[] {
  return tools.definitions().map(({ name, description, input_schema }) => ({
    name,
    description,
    inputSchema: { ...input_schema, type: 'object' },
  }));
}

async function callTool(
  options: McpToolsOptions,
  name: string,
  args: Record<string, unknown> | undefined,
  ctx: ServerContext,
  progressToken: ProgressToken | undefined,
): Promise<CallToolResult> {
  const { tools, caller, calls } = options;
  const dialect = tools.dialects().find((candidate: Dialect) => candidate === name);
  if (dialect === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `no tool ${JSON.stringify(name)}; available: ${tools.dialects().join(', ')}`,
    );
  }
  // Input that breaks the schema is a tool error the model can read and correct (MCP
  // 2025-11-25: input validation errors are tool execution errors).
  const invalid = argumentChecks(tools).get(name)?.(args ?? {});
  const command = args?.command;
  if (typeof command !== 'string') return failure('command must be a non-empty string');
  if (invalid !== undefined) {
    return failure(`the arguments do not match the ${name} tool's input schema: ${invalid}`);
  }

  // MCP cancellation (notifications/cancelled, the request's connection closing, the session
  // closing) and shutdown all end the call through one switch.
  const mcpSignal = ctx.mcpReq.signal;
  const controller = new AbortController();
  const onMcpAbort = (): void => controller.abort(mcpSignal.reason);
  mcpSignal.addEventListener('abort', onMcpAbort, { once: true });
  if (mcpSignal.aborted) onMcpAbort();
  const progress =
    progressToken === undefined ? undefined : reportProgress(options, ctx, progressToken);
  try {
    const output = await calls.track(ctx.mcpReq.id, controller, () =>
      tools.call(
        caller.agent,
        dialect,
        command,
        controller.signal,
        caller.labels === undefined ? undefined : { labels: caller.labels },
      ),
    );
    return { content: [{ type: 'text', text: output }] };
  } catch (error) {
    if (controller.signal.reason instanceof McpShutdown) {
      return failure(controller.signal.reason.message);
    }
    // A coded refusal (empty command, a human holds the shell) is for the model to read.
    if (error instanceof JumpseatError && !controller.signal.aborted) return failure(error.message);
    throw error;
  } finally {
    if (progress !== undefined) clearInterval(progress);
    mcpSignal.removeEventListener('abort', onMcpAbort);
    // A cancelled request gets no response (MCP says so); its stream ends rather than stay
    // open until the session closes.
    if (controller.signal.aborted && !(controller.signal.reason instanceof McpShutdown)) {
      options.onCancelled?.(ctx.mcpReq.id);
    }
  }
}

/** Sends progress while the call runs: elapsed seconds, always increasing, no total. */
function reportProgress(
  options: McpToolsOptions,
  ctx: ServerContext,
  progressToken: ProgressToken,
): NodeJS.Timeout {
  const started = Date.now();
  let last = 0;
  return setInterval(() => {
    const seconds = Math.max(last + 1, Math.round((Date.now() - started) / 1000));
    last = seconds;
    ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken, progress: seconds, message: `running for ${seconds} s` },
      })
      .catch(() => undefined); // the client went away: the call's cancellation handles it
  }, options.progressIntervalMs);
}

function failure(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}
