/**
 * The addresses jumpseat gives out: where it listens, where people reach it (the public URL,
 * or on a wildcard host the machine's own addresses), and the login URL that puts the admin
 * token into a browser.
 */
import { isIPv6 } from 'node:net';
import type { NetworkInterfaceInfo } from 'node:os';

/** Hosts that mean "every address of this machine": no browser can open them. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** How the server is reached: `https` with `--tls-cert`, and the `--base-path` prefix. */
export interface UrlShape {
  readonly scheme: 'http' | 'https';
  /** Starts and ends with `/`. */
  readonly basePath: string;
}

const PLAIN: UrlShape = { scheme: 'http', basePath: '/' };

/** The base URL people and harnesses use; IPv6 literals need brackets in a URL. */
export function serverUrl(host: string, port: number, shape: UrlShape = PLAIN): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return `${shape.scheme}://${isIPv6(bare) ? `[${bare}]` : bare}:${port}${shape.basePath}`;
}

/** `base` ends with a slash, as serverUrl returns it. */
export function loginUrl(base: string, token: string): string {
  return `${base}login?token=${encodeURIComponent(token)}`;
}

/**
 * Where people reach the server, best first: the public URL when one is set; on a wildcard
 * host, this machine's external addresses and then loopback; else the listening address.
 */
export function reachableUrls(
  host: string,
  port: number,
  publicUrl: string | null,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>,
  shape: UrlShape = PLAIN,
): string[] {
  if (publicUrl !== null) return [publicUrl];
  if (!WILDCARD_HOSTS.has(host)) return [serverUrl(host, port, shape)];
  const withIpv6 = host !== '0.0.0.0';
  const external: string[] = [];
  const loopback: string[] = [];
  for (const info of Object.values(interfaces).flat()) {
    if (info === undefined) continue;
    if (info.family === 'IPv6' && (!withIpv6 || info.address.startsWith('fe80:'))) continue;
    (info.internal ? loopback : external).push(serverUrl(info.address, port, shape));
  }
  const urls = [...external, ...loopback];
  return urls.length === 0 ? [serverUrl('127.0.0.1', port, shape)] : [...new Set(urls)];
}
