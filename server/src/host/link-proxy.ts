/**
 * The proxy a host dials its control plane through: `--proxy URL` if given, else the standard
 * environment (`HTTPS_PROXY` for an https:// control plane, `HTTP_PROXY` for http://,
 * `ALL_PROXY` for either, minus `NO_PROXY`), read by proxy-from-env as curl and most tools
 * read it. The link goes through it as a CONNECT tunnel (https-proxy-agent), the way RFC 6455
 * says a WebSocket crosses a proxy; credentials in the proxy's URL go as Proxy-Authorization
 * basic, and the URL is only ever shown with its password masked.
 */
import { HttpsProxyAgent } from 'https-proxy-agent';
import { getProxyForUrl } from 'proxy-from-env';
import { ConfigError } from '../config/config-error.ts';

/** `--proxy off`: dial directly, whatever the environment says. */
export const PROXY_OFF = 'off';

export interface LinkProxy {
  readonly url: URL;
  /** The URL as logs show it: the password masked. */
  readonly shown: string;
  /** Where the setting came from, for a message about a bad one. */
  readonly source: string;
}

/**
 * The proxy for the link to `join`; undefined: dial directly. `explicit` is `--proxy`'s value
 * (it wins over the environment, `NO_PROXY` included). The environment is the process's:
 * proxy-from-env reads it there.
 */
export function linkProxy(join: string, explicit: string | undefined): LinkProxy | undefined {
  if (explicit === PROXY_OFF) return undefined;
  if (explicit !== undefined && explicit !== '') return parseProxy(explicit, '--proxy');
  const target = httpUrl(join);
  const found = getProxyForUrl(target.toString());
  if (found === '' || underNoProxyDomain(target)) return undefined;
  const scheme = target.protocol === 'https:' ? 'https' : 'http';
  const source = `${scheme.toUpperCase()}_PROXY (or ALL_PROXY)`;
  return parseProxy(withHttpDefault(found, scheme), source);
}

/** The link's agent: a CONNECT tunnel through the proxy, TLS to the control plane inside it
 *  when the join URL is https://. */
export function proxyAgent(proxy: LinkProxy): HttpsProxyAgent<string> {
  return new HttpsProxyAgent(proxy.url);
}

/** `http://user:secret@proxy:3128` → `http://user:***@proxy:3128/`. */
export function maskedProxyUrl(url: URL): string {
  const shown = new URL(url.toString());
  if (shown.password !== '') shown.password = '***';
  return shown.toString().replace(/\/$/, '');
}

function parseProxy(text: string, source: string): LinkProxy {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The text may hold a password: never repeat it.
    throw new ConfigError(`${source} is not a URL (expected http://[user:password@]host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      `${source}: the host dials through an http:// or https:// proxy, not ${url.protocol}//`,
    );
  }
  return { url, shown: maskedProxyUrl(url), source };
}

/** The join URL as http(s): the scheme the proxy variables are named after (a ws:// URL
 *  would be looked up as WS_PROXY). */
function httpUrl(join: string): URL {
  const url = new URL(join);
  if (url.protocol === 'ws:') url.protocol = 'http:';
  else if (url.protocol === 'wss:') url.protocol = 'https:';
  return url;
}

/**
 * curl, Go and Python take a bare NO_PROXY name as a domain (`corp.example` covers
 * `cp.corp.example` too); proxy-from-env wants a leading dot or `*` for that. The host takes
 * both, as an operator used to those tools expects.
 */
function underNoProxyDomain(target: URL): boolean {
  const list = process.env.no_proxy || process.env.NO_PROXY || '';
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  const hostname = target.hostname.toLowerCase();
  return list
    .toLowerCase()
    .split(/[,\s]/)
    .some((entry) => {
      const [, name = entry, entryPort] = /^(.+):(\d+)$/.exec(entry) ?? [];
      // Empty entries, and those with a leading dot or `*`, are the library's.
      if (name === '' || /^[.*]/.test(name)) return false;
      if (entryPort !== undefined && Number(entryPort) !== port) return false;
      return hostname.endsWith(`.${name}`);
    });
}

/**
 * proxy-from-env gives a proxy written without a scheme (`HTTPS_PROXY=proxy:3128`) the
 * request's own scheme, which for an https:// control plane would mean TLS to the proxy; curl
 * and most tools take such a proxy as http://, and so does the host.
 */
function withHttpDefault(found: string, scheme: string): string {
  const raw = [`${scheme}_proxy`, 'all_proxy']
    .flatMap((name) => [process.env[name], process.env[name.toUpperCase()]])
    .find((value) => value !== undefined && value !== '');
  if (raw !== undefined && !raw.includes('://') && found === `${scheme}://${raw}`) {
    return `http://${raw}`;
  }
  return found;
}
