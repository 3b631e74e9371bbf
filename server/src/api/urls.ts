/**
 * The addresses the start-up banner prints: where the server listens, and the login URL
 * that puts the admin token into a browser cookie.
 */
import { isIPv6 } from 'node:net';

/** The base URL people and harnesses use; IPv6 literals need brackets in a URL. */
export function serverUrl(host: string, port: number): string {
  return `http://${isIPv6(host) ? `[${host}]` : host}:${port}/`;
}

/** `base` ends with a slash, as serverUrl returns it. */
export function loginUrl(base: string, token: string): string {
  return `${base}login?token=${encodeURIComponent(token)}`;
}
