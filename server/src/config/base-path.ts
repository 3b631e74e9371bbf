/**
 * `--base-path`: the path prefix jumpseat is served under behind a proxy (`/jumpseat/`). The
 * server accepts requests with the prefix (a proxy that passes the path on) and without it
 * (a proxy that strips it), and every link it gives out and the web app's `<base>` carry it.
 * It defaults to the path of `--public-url`, which is where browsers see jumpseat.
 */
import { ConfigError } from './config-error.ts';
import { got, type Setting } from './setting-values.ts';

/** Characters of a URL path (RFC 3986 pchar and `/`), nothing that needs escaping in HTML. */
const PATH_CHARS = /^[A-Za-z0-9._~!$()*+,;=:@%/-]*$/;

/** Starts and ends with `/`; `/` when none is configured. */
export function readBasePath(setting: Setting | undefined, publicUrl: string | null): string {
  const fromPublicUrl = publicUrl === null ? '/' : new URL(publicUrl).pathname;
  if (setting === undefined) return fromPublicUrl;
  const raw = setting.raw.trim();
  const withSlashes = `${raw.startsWith('/') ? '' : '/'}${raw}${raw.endsWith('/') ? '' : '/'}`;
  const segments = withSlashes.split('/').slice(1, -1);
  if (
    !PATH_CHARS.test(withSlashes) ||
    withSlashes.includes('//') ||
    segments.some((segment) => segment === '.' || segment === '..')
  ) {
    throw new ConfigError(
      `${setting.source} must be a URL path such as /jumpseat/ ${got(setting)}`,
    );
  }
  if (publicUrl !== null && fromPublicUrl !== '/' && fromPublicUrl !== withSlashes) {
    throw new ConfigError(
      `${setting.source} (${withSlashes}) and the path of --public-url (${fromPublicUrl}) must be the same: both are where browsers see jumpseat`,
    );
  }
  return withSlashes;
}
