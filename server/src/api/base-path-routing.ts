/**
 * Routing under `--base-path`: a request for `/jumpseat/api/x` is routed as `/api/x`, so one
 * set of routes serves a proxy that passes the prefix on and one that strips it. Requests
 * without the prefix are routed as they are.
 */

/** The URL as the routes know it; `basePath` starts and ends with `/`. */
export function stripBasePath(url: string, basePath: string): string {
  if (basePath === '/') return url;
  const bare = basePath.slice(0, -1);
  if (!url.startsWith(bare)) return url;
  const rest = url.slice(bare.length);
  if (rest === '') return '/';
  if (rest.startsWith('/')) return rest;
  // `/jumpseat?x` is the base itself; `/jumpseatx` is another path.
  return rest.startsWith('?') ? `/${rest}` : url;
}
