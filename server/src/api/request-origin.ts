/**
 * Whether a request a browser sent comes from a page of this server: its `Origin` names the
 * host the request reached, or the public URL's origin (`--public-url`). The host is the
 * `Host` header, or `X-Forwarded-Host` when the request came through a proxy named with
 * `--trust-proxy` (Fastify's `request.host`), so a proxy that rewrites `Host` (nginx's
 * default `proxy_pass`) does not turn the browser's own pages away. Requests without an
 * `Origin` are not from a browser page, and the token alone decides for them.
 */
import type { FastifyRequest } from 'fastify';

/**
 * The request's `Origin` when it is present and not this server; undefined otherwise.
 * `publicUrl` is the configured public URL (null when none).
 */
export function foreignOrigin(
  request: FastifyRequest,
  publicUrl: string | null,
): string | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  const host = request.host.toLowerCase();
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return origin;
    if (url.host === host) return undefined;
    if (publicUrl !== null && url.origin === new URL(publicUrl).origin) return undefined;
  } catch {
    // `null` (a sandboxed page, a file) or garbage: not this server.
  }
  return origin;
}
