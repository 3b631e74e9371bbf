/** Builds what is stale (the JavaScript in dist/, the web app in dist/web); a no-op outside a checkout. */
export function buildIfStale(what?: { js?: boolean; web?: boolean }): Promise<void>;
