/**
 * The TypeScript client of a jumpseat server (`import { JumpseatClient } from
 * 'jumpseat/client'`): tool calls, shells and their calls, tokens. It speaks only HTTP and
 * shares nothing with the server but the DTO types of `shared/`.
 */
import type {
  CallInfo,
  ControlEvent,
  Dialect,
  HostInfo,
  RoleName,
  SessionInfo,
  SessionListState,
  ShareCreated,
  ShareInfo,
  ShareRequest,
  TokenInfo,
  TokenReply,
  TokenRequest,
  ToolCallReply,
  ToolDefinition,
  ToolFormat,
  WhoAmI,
} from '../../shared/src/api.ts';
import { apiError, type JumpseatApiError } from './errors.ts';
import { sendRequest } from './http-request.ts';
import type { LiveEvent, LiveWatch, WatchOptions } from './watch.ts';

export {
  BadRequestError,
  ForbiddenError,
  HumanControlError,
  JumpseatApiError,
  NotFoundError,
  UnauthorizedError,
} from './errors.ts';
// LiveWatch is a type here: watch() makes one, and its module (with `ws` and the live
// protocol's validators) loads only then, so a tool-call-only program starts quickly.
export type { ConnectionEvent, LiveEvent, LiveWatch, OutputEvent, WatchOptions } from './watch.ts';
export type {
  CallInfo,
  ControlEvent,
  Dialect,
  HostInfo,
  RoleName,
  SessionInfo,
  SessionListState,
  ShareCreated,
  ShareInfo,
  ShareRequest,
  TokenInfo,
  TokenReply,
  ToolDefinition,
  ToolFormat,
  WhoAmI,
};

export interface JumpseatClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:7400`. */
  readonly url: string;
  /** An agent token for tool calls; a viewer/operator/admin token to read shells. */
  readonly token: string;
}

/**
 * A call lasts as long as its command: the client has no timeout of its own (the server's
 * deadline, `--timeout-ms`, ends a call). Give a signal (e.g. `AbortSignal.timeout(ms)`) to
 * stop waiting sooner.
 */
export interface CallOptions {
  /** Aborting cancels the call on the server: the shell is reset and the result dropped. */
  readonly signal?: AbortSignal;
}

/** `agent` is required for role `agent`; `name` defaults to the role (or `agent:<id>`). */
export type TokenOptions = TokenRequest;

export class JumpseatClient {
  readonly url: string;
  readonly #token: string;

  constructor(options: JumpseatClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.#token = options.token;
  }

  /** Runs `command` in `agent`'s persistent bash shell; resolves with the result text. */
  bash(agent: string, command: string, options: CallOptions = {}): Promise<string> {
    return this.call(agent, 'bash', command, options);
  }

  /** Runs `command` in `agent`'s persistent PowerShell; resolves with the result text. */
  pwsh(agent: string, command: string, options: CallOptions = {}): Promise<string> {
    return this.call(agent, 'pwsh', command, options);
  }

  /** One tool call of any dialect the server runs. */
  async call(
    agent: string,
    dialect: Dialect,
    command: string,
    options: CallOptions = {},
  ): Promise<string> {
    const reply = await this.#request<ToolCallReply>(
      'POST',
      `/api/agents/${encodeURIComponent(agent)}/${encodeURIComponent(dialect)}`,
      { command },
      options.signal,
    );
    return reply.output;
  }

  /** The tool definitions, in the shape a model API takes (Anthropic's by default). */
  tools(format: ToolFormat = 'anthropic'): Promise<object[]> {
    return this.#request('GET', `/api/tools?format=${encodeURIComponent(format)}`);
  }

  /**
   * The shells (supervisor roles): this server run's (`live`, the default), or with every
   * past shell on record (`all`), or only those that ended (`ended`).
   */
  sessions(state: SessionListState = 'live'): Promise<SessionInfo[]> {
    return this.#request('GET', `/api/sessions?state=${encodeURIComponent(state)}`);
  }

  /** Who took, released and interrupted the shell, by name, oldest first. */
  events(sessionId: string): Promise<ControlEvent[]> {
    return this.#request('GET', `/api/sessions/${encodeURIComponent(sessionId)}/events`);
  }

  /** Everything the shell showed, as asciicast v2 text (rotated parts joined). */
  async recording(sessionId: string): Promise<string> {
    return this.#request(
      'GET',
      `/api/sessions/${encodeURIComponent(sessionId)}/recording`,
      undefined,
      undefined,
      'text',
    );
  }

  /** The calls of one shell, with the result text exactly as the agent got it. */
  calls(sessionId: string): Promise<CallInfo[]> {
    return this.#request('GET', `/api/sessions/${encodeURIComponent(sessionId)}/calls`);
  }

  /**
   * Watches a shell live (supervisor roles): `onEvent` gets a snapshot, then every output
   * chunk once and in order, call and control events; reconnects from the last offset after
   * a drop. Resolves once connected; `close()` stops it. Operators may `send` control
   * messages (`take_control`, `input`, `release_control`, `interrupt`, `resize`).
   */
  async watch(
    sessionId: string,
    onEvent: (event: LiveEvent) => void,
    options: WatchOptions = {},
  ): Promise<LiveWatch> {
    const url = `${this.url.replace(/^http/, 'ws')}/api/sessions/${encodeURIComponent(sessionId)}/live`;
    const { LiveWatch } = await import('./watch.ts');
    const watch = new LiveWatch(url, this.#token, onEvent, options);
    await watch.open();
    return watch;
  }

  /** One shell (supervisor roles, or a share link for its own shell). */
  session(sessionId: string): Promise<SessionInfo> {
    return this.#request('GET', `/api/sessions/${encodeURIComponent(sessionId)}`);
  }

  /**
   * Opens a shell of your own (operator or admin): no agent can reach it, and your first live
   * connection to it (`watch`) holds the controls.
   */
  openShell(dialect: Dialect): Promise<SessionInfo> {
    return this.#request('POST', '/api/sessions', { dialect });
  }

  /** Ends a shell's process tree (your own shell, or any as the admin). */
  async closeShell(sessionId: string): Promise<void> {
    await this.#request('DELETE', `/api/sessions/${encodeURIComponent(sessionId)}`);
  }

  /** Makes your own shell `agent`'s shell of its dialect (refused if it has a live one). */
  handOff(sessionId: string, agent: string): Promise<SessionInfo> {
    return this.#request('POST', `/api/sessions/${encodeURIComponent(sessionId)}/hand-off`, {
      agent,
    });
  }

  /** A link that reaches this one shell, to watch (`viewer`) or also type (`operator`). */
  share(sessionId: string, request: ShareRequest): Promise<ShareCreated> {
    return this.#request('POST', `/api/sessions/${encodeURIComponent(sessionId)}/shares`, request);
  }

  /** The shell's share links that still work (the tokens are not shown again). */
  shares(sessionId: string): Promise<ShareInfo[]> {
    return this.#request('GET', `/api/sessions/${encodeURIComponent(sessionId)}/shares`);
  }

  /** Revokes a share link; its holder is disconnected at once. */
  async revokeShare(sessionId: string, shareId: string): Promise<void> {
    await this.#request(
      'DELETE',
      `/api/sessions/${encodeURIComponent(sessionId)}/shares/${encodeURIComponent(shareId)}`,
    );
  }

  /** Who this client's token is. */
  me(): Promise<WhoAmI> {
    return this.#request('GET', '/api/me');
  }

  /** Sets the display name others see for this token (a share link's holder names themselves). */
  setName(name: string): Promise<WhoAmI> {
    return this.#request('PUT', '/api/me/name', { name });
  }

  /** Mints a token (admin only); the reply holds the token, shown this once. */
  createToken(options: TokenOptions): Promise<TokenReply> {
    return this.#request('POST', '/api/tokens', options);
  }

  /** The shell hosts joined to this control plane (admin only). */
  hosts(): Promise<HostInfo[]> {
    return this.#request('GET', '/api/hosts');
  }

  /** Every minted token and share link, without secrets (admin only). */
  tokens(): Promise<TokenInfo[]> {
    return this.#request('GET', '/api/tokens');
  }

  /** Renames a minted token (admin only; a share link's holder names themselves). */
  renameToken(tokenId: string, name: string): Promise<TokenInfo> {
    return this.#request('PATCH', `/api/tokens/${encodeURIComponent(tokenId)}`, { name });
  }

  /** Revokes a token (admin only): its holder's connections close at once. */
  async revokeToken(tokenId: string): Promise<void> {
    await this.#request('DELETE', `/api/tokens/${encodeURIComponent(tokenId)}`);
  }

  async #request<T>(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
    as: 'json' | 'text' = 'json',
  ): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await sendRequest(new URL(`${this.url}${path}`), {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal === undefined ? {} : { signal }),
    });
    const { text } = response;
    if (response.status < 200 || response.status > 299) throw refusal(response.status, text);
    if (as === 'text') return text as T;
    // 204 No Content (closing, revoking) has no body.
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }
}

function refusal(status: number, text: string): JumpseatApiError {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && 'error' in body) {
      const { error } = body;
      if (typeof error === 'object' && error !== null && 'code' in error && 'message' in error) {
        return apiError(status, String(error.code), String(error.message));
      }
    }
  } catch {
    // Not our error shape (a proxy's page): fall through to the raw text.
  }
  return apiError(status, 'HTTP_ERROR', text.slice(0, 500) || `HTTP ${status}`);
}
