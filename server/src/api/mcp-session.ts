/**
 * One MCP session (Streamable HTTP): an SDK server and transport bound, for their whole life,
 * to the token that opened them and the agent it acts for. Its tools are the tool service's
 * dialects, with the configured descriptions and input schemas, and a call's text content is
 * exactly the HTTP API's `output`.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
// The low-level Server, not McpServer: McpServer wants zod schemas, and the tools must carry
// the configured JSON Schema unchanged.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type RequestId,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import packageJson from '../../../package.json' with { type: 'json' };
import type { Dialect } from '../../../shared/src/api.ts';
import { JumpseatError } from '../errors.ts';
import type { ToolService } from '../tool/tool-service.ts';

/** Whom a session acts for; every later request must come from the same token and agent. */
export interface McpCaller {
  readonly tokenId: string;
  readonly agent: string;
}

/** Why a call was ended from our side; its result then says so instead of being dropped. */
export class McpShutdown extends Error {}

export class McpSession {
  readonly caller: McpCaller;
  /** Date.now() of the last request, for idle expiry. */
  lastSeen = Date.now();
  private readonly transport: StreamableHTTPServerTransport;
  private readonly server: Server;
  /** Calls in flight by JSON-RPC request id, each with its own cancel switch. */
  private readonly calls = new Map<
    RequestId,
    { controller: AbortController; done: Promise<void> }
  >();
  private initialized?: string;

  constructor(
    caller: McpCaller,
    private readonly tools: ToolService,
  ) {
    this.caller = caller;
    this.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.initialized = id;
      },
    });
    this.server = new Server(
      { name: 'jumpseat', version: packageJson.version },
      { capabilities: { tools: {} } },
    );
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.listTools() }));
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.callTool(request.params.name, request.params.arguments, extra.requestId, extra.signal),
    );
  }

  /** The session id once `initialize` succeeded on this session. */
  get id(): string | undefined {
    return this.initialized;
  }

  get busy(): boolean {
    return this.calls.size > 0;
  }

  async connect(): Promise<void> {
    await this.server.connect(this.transport);
  }

  /** Hands one HTTP request to the SDK transport (the reply is written by it). */
  async handle(request: IncomingMessage, response: ServerResponse, body?: unknown): Promise<void> {
    this.lastSeen = Date.now();
    await this.transport.handleRequest(request, response, body);
  }

  /** Cancels a call whose HTTP request went away, as a closed HTTP API request does. */
  cancel(requestId: RequestId, reason: Error): void {
    this.calls.get(requestId)?.controller.abort(reason);
  }

  /** Ends every call in flight with `reason` and waits until each has settled. */
  async endCalls(reason: McpShutdown): Promise<void> {
    const pending = [...this.calls.values()];
    for (const call of pending) call.controller.abort(reason);
    await Promise.all(pending.map((call) => call.done));
  }

  /** Cancels what is in flight and closes the transport (its streams end). */
  async close(): Promise<void> {
    for (const call of this.calls.values()) {
      call.controller.abort(new Error('the MCP session was closed'));
    }
    await this.server.close();
  }

  private listTools(): Tool[] {
    return this.tools.definitions().map(({ name, description, input_schema }) => ({
      name,
      description,
      inputSchema: { ...input_schema, type: 'object' },
    }));
  }

  private async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    requestId: RequestId,
    mcpSignal: AbortSignal,
  ): Promise<CallToolResult> {
    const dialect = this.tools.dialects().find((candidate: Dialect) => candidate === name);
    if (dialect === undefined) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `no tool ${JSON.stringify(name)}; available: ${this.tools.dialects().join(', ')}`,
      );
    }
    const command = args?.command;
    if (typeof command !== 'string') return failure('command must be a non-empty string');

    // MCP cancellation (notifications/cancelled, the session closing) and our own reasons
    // (the request's connection closed, shutdown) all end the call through one switch.
    const controller = new AbortController();
    const onMcpAbort = (): void => controller.abort(mcpSignal.reason);
    mcpSignal.addEventListener('abort', onMcpAbort, { once: true });
    if (mcpSignal.aborted) onMcpAbort();
    let settle = (): void => undefined;
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.calls.set(requestId, { controller, done });
    try {
      const output = await this.tools.call(this.caller.agent, dialect, command, controller.signal);
      return { content: [{ type: 'text', text: output }] };
    } catch (error) {
      if (controller.signal.reason instanceof McpShutdown) {
        return failure(controller.signal.reason.message);
      }
      // A coded refusal (empty command, a human holds the shell) is for the model to read.
      if (error instanceof JumpseatError && !controller.signal.aborted)
        return failure(error.message);
      throw error;
    } finally {
      mcpSignal.removeEventListener('abort', onMcpAbort);
      this.calls.delete(requestId);
      settle();
      // A cancelled request gets no response (MCP says so); end its event stream rather
      // than leave it open until the session closes.
      if (controller.signal.aborted && !(controller.signal.reason instanceof McpShutdown)) {
        this.transport.closeSSEStream(requestId);
      }
    }
  }
}

function failure(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}
