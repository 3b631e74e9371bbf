/**
 * `--trust-proxy`: the proxies in front of jumpseat whose `X-Forwarded-For`, `-Proto` and
 * `-Host` count (Fastify's `trustProxy`, through proxy-addr). Off by default: a header any
 * client can send must never decide a request's origin or address unless it came through a
 * proxy the operator named.
 */
import { isIP } from 'node:net';
import { ConfigError } from './config-error.ts';
import { got, type Setting } from './setting-values.ts';

/** proxy-addr's names for whole ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** The addresses, CIDRs and range names, as given; empty when no proxy is trusted. */
export function readTrustProxy(setting: Setting | undefined): readonly string[] {
  if (setting === undefined) return [];
  const entries = setting.raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const entry of entries) {
    if (!isProxyAddress(entry)) {
      throw new ConfigError(
        `${setting.source} must list proxy addresses, CIDRs (10.0.0.0/8) or loopback, linklocal, uniquelocal ${got({ ...setting, raw: entry })}`,
      );
    }
  }
  return entries;
}

function isProxyAddress(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}
