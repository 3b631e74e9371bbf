/**
 * `--database` (`JUMPSEAT_DATABASE_URL`): where the control plane keeps its state. Absent, it
 * is the embedded SQLite in the data dir; a `postgres://` URL puts it in PostgreSQL, which
 * several replicas can share (README, "High availability"). The URL carries a password, so
 * no message and no banner ever shows it: only `masked`.
 */
import { ConfigError } from '../config/config-error.ts';
import type { Setting } from '../config/setting-values.ts';

export interface DatabaseUrl {
  /** The URL as given, password included: for the driver only. */
  readonly url: string;
  /** The same with the password replaced by `***`: for banners, logs and errors. */
  readonly masked: string;
}

const SCHEMES = new Set(['postgres:', 'postgresql:']);

/** The URL with any password replaced by `***` (a URL that does not parse becomes `***`). */
export function maskDatabaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return '***';
  }
  if (url.password !== '') url.password = '***';
  const query = new URLSearchParams(url.search);
  if (query.has('password')) {
    query.set('password', '***');
    url.search = query.toString();
  }
  return url.toString();
}

/** Null when not configured; else a checked PostgreSQL URL. */
export function readDatabaseUrl(setting: Setting | undefined): DatabaseUrl | null {
  if (setting === undefined || setting.raw.trim() === '') return null;
  const masked = maskDatabaseUrl(setting.raw);
  let url: URL;
  try {
    url = new URL(setting.raw);
  } catch {
    throw new ConfigError(
      `${setting.source} must be a postgres:// URL, e.g. postgres://jumpseat:PASSWORD@db.example:5432/jumpseat (got ${JSON.stringify(masked)})`,
    );
  }
  if (!SCHEMES.has(url.protocol)) {
    throw new ConfigError(
      // Only the scheme is shown: what follows it is not known to be a URL's, so not maskable.
      `${setting.source} must be a postgres:// URL; leave it unset for the embedded SQLite (got one of scheme ${JSON.stringify(url.protocol)})`,
    );
  }
  if (url.hostname === '' && !url.searchParams.has('host')) {
    throw new ConfigError(
      `${setting.source} must name the database's host (got ${JSON.stringify(masked)})`,
    );
  }
  return { url: setting.raw, masked };
}
