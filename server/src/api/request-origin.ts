/**
 * Whether a request a browser sent comes from a page of this server: its `Origin` names the
 * host the request reached (the `Host` header). Requests without an `Origin` are not from a
 * browser page, and the token alone decides for them.
 */
import type { FastifyRequest } from 'fastify';

/** The request's `Origin` when it is present and not this server; undefined otherwise. */
export function foreignOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  const host = request.headers.host?.toLowerCase();
  try {
    const url = new URL(origin);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.host === host) {
      return undefined;
    }
  } catch {
    // `null` (a sandboxed page, a file) or garbage: not this server.
  }
  return origin;
}
