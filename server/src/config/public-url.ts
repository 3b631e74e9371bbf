/**
 * `--public-url`: the address people reach jumpseat at (a proxy's, a machine name), used for
 * every link the server hands out and for the start-up banner instead of the listening one.
 */
import { ConfigError } from './config-error.ts';
import { got, type Setting } from './setting-values.ts';

/** The URL's origin and path, ending in `/`; null when not configured. */
export function readPublicUrl(setting: Setting | undefined): string | null {
  if (setting === undefined) return null;
  let url: URL;
  try {
    url = new URL(setting.raw);
  } catch {
    throw new ConfigError(`${setting.source} must be an http:// or https:// URL ${got(setting)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${setting.source} must be an http:// or https:// URL ${got(setting)}`);
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new ConfigError(
      `${setting.source} must not carry a user, a query or a fragment ${got(setting)}`,
    );
  }
  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  return `${url.origin}${path}`;
}
