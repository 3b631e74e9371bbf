/**
 * Where the app lives on its server: `/`, or the `--base-path` a proxy serves it under
 * (`/jumpseat/`). The server writes it into the page's `<base href>`, and every URL the app
 * makes — API calls, live sockets, links, its own routes — goes through here.
 */

/** The base path, starting and ending with `/`. */
export function basePath(): string {
  return new URL(document.baseURI).pathname;
}

/** `path` (from the server's root, `/api/me`) as this page must ask for it. */
export function appUrl(path: string): string {
  return `${basePath()}${path.replace(/^\//, '')}`;
}

/** The page's path as the app's routes know it: without the base path, from `/`. */
export function appRoute(): string {
  const base = basePath();
  const path = location.pathname;
  // A proxy that strips the prefix may also be reached past it: the path is the route then.
  return path.startsWith(base) ? `/${path.slice(base.length)}` : path;
}

/** Where people reach this server, for links to copy: the page's origin and base path. */
export function appOrigin(): string {
  return `${location.origin}${basePath()}`;
}
