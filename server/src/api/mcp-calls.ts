/**
 * The MCP endpoint's bookkeeping that needs no SDK (so the SDK loads only with the first MCP
 * request): whom a server acts for, and the calls in flight, which a cancelled request or a
 * shutdown ends.
 */

/** Whom a server acts for; every request it serves comes from this token and agent. */
export interface McpCaller {
  readonly tokenId: string;
  readonly agent: string;
  /** The agent token's placement labels (see CallPlacement). */
  readonly labels?: Readonly<Record<string, string>>;
}

/** Why a call was ended from our side; its result then says so instead of being dropped. */
export class McpShutdown extends Error {}

/**
 * How often a running call reports progress: well inside the SDKs' 60 s default request
 * timeout, and often enough for a client configured with a timeout of a few seconds.
 */
export const PROGRESS_INTERVAL_MS = 3000;

/**
 * At most this long between bytes of a running call's response on the 2026-07-28 revision
 * (an SSE comment): Node's fetch (undici) gives up on a body silent for 300 s, and proxies
 * on idle connections sooner. The 2025 sessions' transport keeps the same default.
 */
export const KEEP_ALIVE_INTERVAL_MS = 15_000;

/** Every call in flight on this server, so a shutdown can end them with a reason. */
export class McpCalls {
  private readonly running = new Set<{
    controller: AbortController;
    done: Promise<void>;
    requestId: string | number;
  }>();

  get size(): number {
    return this.running.size;
  }

  /** Runs `call` (JSON-RPC request `requestId`) with a switch `cancel` and `endAll` flip. */
  async track<T>(
    requestId: string | number,
    controller: AbortController,
    call: () => Promise<T>,
  ): Promise<T> {
    let settle = (): void => undefined;
    const entry = {
      requestId,
      controller,
      done: new Promise<void>((resolve) => {
        settle = resolve;
      }),
    };
    this.running.add(entry);
    try {
      return await call();
    } finally {
      this.running.delete(entry);
      settle();
    }
  }

  /** Cancels request `requestId` (its HTTP request closed before the answer). */
  cancel(requestId: string | number, reason: Error): void {
    for (const call of this.running)
      if (call.requestId === requestId) call.controller.abort(reason);
  }

  /** Ends every call in flight with `reason` and waits until each has settled. */
  async endAll(reason: Error): Promise<void> {
    const pending = [...this.running];
    for (const call of pending) call.controller.abort(reason);
    await Promise.all(pending.map((call) => call.done));
  }
}
