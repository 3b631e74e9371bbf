/**
 * One 2025-era MCP session (Streamable HTTP, `initialize` first): an SDK server and transport
 * bound, for their whole life, to the token that opened them and the agent it acts for. The
 * 2026-07-28 revision has no sessions; mcp-api.ts serves it per request.
 */
import { randomUUID } from 'node:crypto';
import {
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { ToolService } from '../tool/tool-service.ts';
import { type McpCaller, McpCalls } from './mcp-calls.ts';
import { createMcpToolServer } from './mcp-tools.ts';

export class McpSession {
  readonly caller: McpCaller;
  /** Date.now() of the last request, for idle expiry. */
  lastSeen = Date.now();
  private readonly transport: WebStandardStreamableHTTPServerTransport;
  private readonly server: Server;
  /** This session's calls in flight; `calls` of the whole endpoint sees them too. */
  private readonly own = new McpCalls();
  private initialized?: string;

  constructor(caller: McpCaller, tools: ToolService, progressIntervalMs: number) {
    this.caller = caller;
    this.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.initialized = id;
      },
    });
    this.server = createMcpToolServer({
      caller,
      tools,
      calls: this.own,
      progressIntervalMs,
      onCancelled: (requestId) => this.transport.closeSSEStream(requestId),
    });
  }

  /** The session id once `initialize` succeeded on this session. */
  get id(): string | undefined {
    return this.initialized;
  }

  get busy(): boolean {
    return this.own.size > 0;
  }

  async connect(): Promise<void> {
    await this.server.connect(this.transport);
  }

  /** Hands one HTTP request to the SDK transport and resolves with its response. */
  handle(request: Request, parsedBody: unknown): Promise<Response> {
    this.lastSeen = Date.now();
    return this.transport.handleRequest(request, { parsedBody });
  }

  /** Cancels a call whose HTTP request went away, as a closed HTTP API request does. */
  cancel(requestId: string | number, reason: Error): void {
    this.own.cancel(requestId, reason);
  }

  /** Ends every call in flight with `reason` and waits until each has settled. */
  endCalls(reason: Error): Promise<void> {
    return this.own.endAll(reason);
  }

  /** Cancels what is in flight and closes the transport (its streams end). */
  async close(): Promise<void> {
    void this.own.endAll(new Error('the MCP session was closed'));
    await this.server.close();
  }
}
