/**
 * The page's HTTP reads: same-origin fetches that carry the login cookie. A missing or
 * refused token becomes an `AccessProblem` the page explains instead of a broken view.
 */
import type { CallInfo, SessionInfo } from '../../shared/src/api.ts';

export type AccessProblem =
  /** No cookie or a token the server no longer knows: open the login URL. */
  | { readonly kind: 'login' }
  /** Logged in, but this token's role may not watch shells. */
  | { readonly kind: 'forbidden'; readonly message: string }
  | { readonly kind: 'not_found'; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string };

export type Fetched<T> = { ok: true; value: T } | { ok: false; problem: AccessProblem };

const HTTP_UNAUTHORIZED = 401;
const HTTP_FORBIDDEN = 403;
const HTTP_NOT_FOUND = 404;

export function fetchSessions(): Promise<Fetched<SessionInfo[]>> {
  return getJson<SessionInfo[]>('/api/sessions');
}

export function fetchCalls(sessionId: string): Promise<Fetched<CallInfo[]>> {
  return getJson<CallInfo[]>(`/api/sessions/${encodeURIComponent(sessionId)}/calls`);
}

async function getJson<T>(path: string): Promise<Fetched<T>> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', headers: { accept: 'json' } });
  } catch (error) {
    return { ok: false, problem: { kind: 'failed', message: `cannot reach jumpseat: ${error}` } };
  }
  if (response.ok) return { ok: true, value: (await response.json()) as T };
  const message = await errorMessage(response);
  if (response.status === HTTP_UNAUTHORIZED) return { ok: false, problem: { kind: 'login' } };
  if (response.status === HTTP_FORBIDDEN) {
    return { ok: false, problem: { kind: 'forbidden', message } };
  }
  if (response.status === HTTP_NOT_FOUND) {
    return { ok: false, problem: { kind: 'not_found', message } };
  }
  return { ok: false, problem: { kind: 'failed', message } };
}

async function errorMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return body.error.message;
  } catch {
    // Not our error shape (a proxy's page): the status line will do.
  }
  return `${response.status} ${response.statusText}`;
}
