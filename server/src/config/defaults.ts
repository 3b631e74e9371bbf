/**
 * Where a server listens and keeps its state when nothing says otherwise. A module of its own,
 * without imports, so the CLI's client commands find the local server without loading the
 * server's whole configuration (they start for every call; see issue 25).
 */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7400;
export const DEFAULT_DATA_DIR = './.jumpseat';
