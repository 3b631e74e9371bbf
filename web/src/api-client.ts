/**
 * The page's HTTP requests: same-origin fetches that carry this browser's credential (see
 * credential.ts). A missing or refused one becomes an `AccessProblem` the page explains
 * instead of a broken view.
 */
import type {
  CallInfo,
  ControlEvent,
  Dialect,
  HostInfo,
  SessionInfo,
  ShareCreated,
  ShareInfo,
  ShareRequest,
  TokenInfo,
  TokenReply,
  TokenRequest,
  WebSettings,
  WhoAmI,
} from '../../shared/src/api.ts';
import { DIALECTS } from '../../shared/src/api.ts';
import { appUrl } from './app-path.ts';
import { authorization } from './credential.ts';
import { socketUrl } from './reconnecting-socket.ts';

export type AccessProblem =
  /** Not signed in, or a credential the server no longer knows: open the login URL. */
  | { readonly kind: 'login' }
  /** Logged in, but this token's role may not watch shells. */
  | { readonly kind: 'forbidden'; readonly message: string }
  | { readonly kind: 'not_found'; readonly message: string }
  /**
   * The credential this page used was revoked: a share link (by the person who shared it) or
   * a minted token (by an admin). `detail` says which and by whom, when the server said so.
   */
  | { readonly kind: 'revoked'; readonly credential: 'link' | 'token'; readonly detail?: string }
  /** A share link's time ran out. */
  | { readonly kind: 'expired' }
  /** The server refused the request for what it asked (a 409 conflict, a bad value). */
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string }
  /** The server did not answer (restarting, or the network dropped): worth trying again. */
  | { readonly kind: 'unreachable'; readonly message: string };

export type Fetched<T> = { ok: true; value: T } | { ok: false; problem: AccessProblem };

const HTTP_NO_CONTENT = 204;
const HTTP_BAD_REQUEST = 400;
const HTTP_UNAUTHORIZED = 401;
const HTTP_FORBIDDEN = 403;
const HTTP_NOT_FOUND = 404;
const HTTP_CONFLICT = 409;
/** A proxy in front of a server that is away. */
const HTTP_BAD_GATEWAY = 502;
const HTTP_GATEWAY_TIMEOUT = 504;
const SHUTTING_DOWN = 'SHUTTING_DOWN';
const ASCIICAST = 'application/x-asciicast';
/** The server's code for a share link's token that was revoked or expired. */
const LINK_ENDED = 'LINK_ENDED';

const sessionPath = (id: string): string => `/api/sessions/${encodeURIComponent(id)}`;

export function fetchSessions(): Promise<Fetched<SessionInfo[]>> {
  return requestJson<SessionInfo[]>('GET', '/api/sessions');
}

/** Shells that ended (this run's and past runs'), from history. */
export function fetchEndedSessions(): Promise<Fetched<SessionInfo[]>> {
  return requestJson<SessionInfo[]>('GET', '/api/sessions?state=ended');
}

/** The server settings the pages show by (when a wait needs a human, the public URL). */
export function fetchSettings(): Promise<Fetched<WebSettings>> {
  return requestJson<WebSettings>('GET', '/api/settings');
}

/** Where a clipped call's saved whole output is served (`download`: as an attachment). */
export function fullOutputPath(sessionId: string, callId: string, download = false): string {
  const path = `${sessionPath(sessionId)}/calls/${encodeURIComponent(callId)}/output`;
  return download ? `${path}?download=true` : path;
}

/** The first `maxBytes` of a clipped call's saved output, and the whole file's size. */
export async function fetchFullOutput(
  sessionId: string,
  callId: string,
  maxBytes: number,
): Promise<Fetched<{ text: string; totalBytes: number }>> {
  const sent = await request(
    'GET',
    fullOutputPath(sessionId, callId),
    'text/plain',
    undefined,
    undefined,
    {
      range: `bytes=0-${maxBytes - 1}`,
    },
  );
  if (!sent.ok) return sent;
  const total = /\/(\d+)$/.exec(sent.value.headers.get('content-range') ?? '')?.[1];
  const text = await sent.value.text();
  return {
    ok: true,
    value: { text, totalBytes: total === undefined ? text.length : Number(total) },
  };
}

/** Saves a clipped call's whole output as a file (read through this page's credentials). */
export async function downloadFullOutput(
  sessionId: string,
  callId: string,
  fileName: string,
): Promise<Fetched<null>> {
  const sent = await request('GET', fullOutputPath(sessionId, callId, true), 'text/plain');
  if (!sent.ok) return sent;
  const url = URL.createObjectURL(await sent.value.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
  return { ok: true, value: null };
}

export function fetchSession(sessionId: string): Promise<Fetched<SessionInfo>> {
  return requestJson<SessionInfo>('GET', sessionPath(sessionId));
}

export function fetchCalls(sessionId: string): Promise<Fetched<CallInfo[]>> {
  return requestJson<CallInfo[]>('GET', `${sessionPath(sessionId)}/calls`);
}

export function fetchMe(): Promise<Fetched<WhoAmI>> {
  return requestJson<WhoAmI>('GET', '/api/me');
}

export function putName(name: string): Promise<Fetched<WhoAmI>> {
  return requestJson<WhoAmI>('PUT', '/api/me/name', { name });
}

/** The dialects this server runs: the names `GET /api/tools` lists. */
export async function fetchDialects(): Promise<Dialect[]> {
  const tools = await requestJson<{ name?: unknown }[]>('GET', '/api/tools');
  if (!tools.ok) return ['bash'];
  const names = new Set(tools.value.map((tool) => tool.name));
  return DIALECTS.filter((dialect) => names.has(dialect));
}

/** A person's own shell, ready; its owner gets the controls when their page joins. */
export function openShell(dialect: Dialect): Promise<Fetched<SessionInfo>> {
  return requestJson<SessionInfo>('POST', '/api/sessions', { dialect });
}

/** Ends the shell's process tree. */
export function closeShell(sessionId: string): Promise<Fetched<null>> {
  return requestJson<null>('DELETE', sessionPath(sessionId));
}

export function handOff(sessionId: string, agent: string): Promise<Fetched<SessionInfo>> {
  return requestJson<SessionInfo>('POST', `${sessionPath(sessionId)}/hand-off`, { agent });
}

export function createShare(
  sessionId: string,
  request: ShareRequest,
): Promise<Fetched<ShareCreated>> {
  return requestJson<ShareCreated>('POST', `${sessionPath(sessionId)}/shares`, request);
}

export function fetchShares(sessionId: string): Promise<Fetched<ShareInfo[]>> {
  return requestJson<ShareInfo[]>('GET', `${sessionPath(sessionId)}/shares`);
}

export function revokeShare(sessionId: string, shareId: string): Promise<Fetched<null>> {
  return requestJson<null>(
    'DELETE',
    `${sessionPath(sessionId)}/shares/${encodeURIComponent(shareId)}`,
  );
}

export function fetchTokens(): Promise<Fetched<TokenInfo[]>> {
  return requestJson<TokenInfo[]>('GET', '/api/tokens');
}

/** Mints a token (admin): the reply holds its secret, shown this once. */
export function mintToken(request: TokenRequest): Promise<Fetched<TokenReply>> {
  return requestJson<TokenReply>('POST', '/api/tokens', request);
}

export function renameToken(id: string, name: string): Promise<Fetched<TokenInfo>> {
  return requestJson<TokenInfo>('PATCH', `/api/tokens/${encodeURIComponent(id)}`, { name });
}

export function revokeToken(id: string): Promise<Fetched<null>> {
  return requestJson<null>('DELETE', `/api/tokens/${encodeURIComponent(id)}`);
}

/** The shell hosts that joined this control plane (admin). */
export function fetchHosts(): Promise<Fetched<HostInfo[]>> {
  return requestJson<HostInfo[]>('GET', '/api/hosts');
}

const hostPath = (name: string): string => `/api/hosts/${encodeURIComponent(name)}`;

/** No new shells go to the host; the ones it runs go on. */
export function drainHost(name: string): Promise<Fetched<HostInfo>> {
  return requestJson<HostInfo>('POST', `${hostPath(name)}/drain`);
}

/** New shells may go to a drained host again. */
export function undrainHost(name: string): Promise<Fetched<HostInfo>> {
  return requestJson<HostInfo>('DELETE', `${hostPath(name)}/drain`);
}

/** Forgets a host that is gone (the server refuses a connected one). */
export function forgetHost(name: string): Promise<Fetched<null>> {
  return requestJson<null>('DELETE', hostPath(name));
}

export function fetchControlEvents(sessionId: string): Promise<Fetched<ControlEvent[]>> {
  return requestJson<ControlEvent[]>('GET', `${sessionPath(sessionId)}/events`);
}

/** The shell's asciicast v2 text (its rotated parts joined). */
export async function fetchRecording(sessionId: string): Promise<Fetched<string>> {
  const sent = await request('GET', `${sessionPath(sessionId)}/recording`, ASCIICAST);
  return sent.ok ? { ok: true, value: await sent.value.text() } : sent;
}

/**
 * The URL of a WebSocket of this server with a fresh single-use ticket: a page cannot put
 * `Authorization` on a WebSocket, and its credential must never go into a URL.
 */
export async function ticketedSocketUrl(path: string): Promise<string> {
  const ticket = await requestJson<{ ticket: string }>('POST', '/api/live-tickets');
  if (!ticket.ok) throw new Error(problemText(ticket.problem));
  const url = new URL(socketUrl(path));
  url.searchParams.set('ticket', ticket.value.ticket);
  return url.href;
}

/** Who a secret (a login link's token, or this browser's credential) signs in as. */
export function fetchMeWith(secret: string): Promise<Fetched<WhoAmI>> {
  return requestJson<WhoAmI>('GET', '/api/me', undefined, secret);
}

/** Trades a login link's token for this browser's own credential. */
export function tradeToken(token: string): Promise<Fetched<{ credential: string }>> {
  return requestJson<{ credential: string }>('POST', '/api/login', undefined, token);
}

/** Signs this browser out on the server (its credential stops working). */
export function signOut(): Promise<Fetched<null>> {
  return requestJson<null>('DELETE', '/api/login');
}

async function requestJson<T>(
  method: string,
  path: string,
  body?: object,
  secret?: string,
): Promise<Fetched<T>> {
  const sent = await request(method, path, 'application/json', body, secret);
  if (!sent.ok) return sent;
  if (sent.value.status === HTTP_NO_CONTENT) return { ok: true, value: null as T };
  return { ok: true, value: (await sent.value.json()) as T };
}

/** One same-origin request; a refusal becomes the `AccessProblem` the page explains. */
async function request(
  method: string,
  path: string,
  accept: string,
  body?: object,
  secret?: string,
  extraHeaders: Record<string, string> = {},
): Promise<Fetched<Response>> {
  let response: Response;
  const auth = authorization(secret);
  try {
    response = await fetch(appUrl(path), {
      method,
      // Nothing ambient: the credential travels in the header alone.
      credentials: 'omit',
      headers: {
        ...extraHeaders,
        ...(body === undefined ? { accept } : { accept, 'content-type': 'application/json' }),
        ...auth,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    return {
      ok: false,
      problem: { kind: 'unreachable', message: `cannot reach jumpseat: ${error}` },
    };
  }
  if (response.ok) return { ok: true, value: response };
  return { ok: false, problem: await problemOf(response) };
}

async function problemOf(response: Response): Promise<AccessProblem> {
  const { code, message } = await errorOf(response);
  switch (response.status) {
    case HTTP_UNAUTHORIZED:
      // A share link that was revoked or expired, as opposed to no login at all.
      if (code !== LINK_ENDED) return { kind: 'login' };
      return endedAccess(message, false);
    case HTTP_FORBIDDEN:
      return { kind: 'forbidden', message };
    case HTTP_NOT_FOUND:
      return { kind: 'not_found', message };
    case HTTP_BAD_REQUEST:
    case HTTP_CONFLICT:
      return { kind: 'refused', message };
    case HTTP_BAD_GATEWAY:
    case HTTP_GATEWAY_TIMEOUT:
      return { kind: 'unreachable', message };
    default:
      // Shutting down: the server (or its successor) is about to be back.
      if (code === SHUTTING_DOWN) return { kind: 'unreachable', message };
      return { kind: 'failed', message };
  }
}

async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.message === 'string') {
      return { code: String(body.error.code ?? ''), message: body.error.message };
    }
  } catch {
    // Not our error shape (a proxy's page): the status line will do.
  }
  return { code: '', message: `${response.status} ${response.statusText}` };
}

/**
 * Why a credential stopped working, from the server's words: a live socket's close reason
 * (`the token "ci" was revoked by admin`, `the share link expired`) or a 401's message
 * (`this token was revoked; …`). `live`: the words are a close reason, shown as they are.
 */
export function endedAccess(words: string, live: boolean): AccessProblem {
  if (/expired/.test(words)) return { kind: 'expired' };
  const credential = /\btoken\b/.test(words) && !/share link/.test(words) ? 'token' : 'link';
  return live ? { kind: 'revoked', credential, detail: words } : { kind: 'revoked', credential };
}

/** Whether any of these loads failed only because the server could not be reached. */
export function unreachable(...results: readonly Fetched<unknown>[]): boolean {
  return results.some((result) => !result.ok && result.problem.kind === 'unreachable');
}

/** What to tell the person when a request they made did not go through. */
export function problemText(problem: AccessProblem): string {
  switch (problem.kind) {
    case 'login':
      return 'You are no longer logged in.';
    case 'revoked':
      return problem.credential === 'token'
        ? 'Your token was revoked.'
        : 'Your share link was revoked.';
    case 'expired':
      return 'Your share link expired.';
    default:
      return problem.message;
  }
}
