import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../config/config-error.ts';
import { linkProxy, maskedProxyUrl } from './link-proxy.ts';

const PROXY_VARIABLES = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
];

/** The proxy the link to `join` goes through, as logs show it; '' for none. */
function shown(join: string, explicit?: string): string {
  return linkProxy(join, explicit)?.shown ?? '';
}

describe('the proxy of the link', () => {
  beforeEach(() => {
    // The machine's own proxy settings must not decide these.
    for (const name of PROXY_VARIABLES) vi.stubEnv(name, '');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('is none without proxy variables', () => {
    expect(shown('https://cp.example/')).toBe('');
  });

  it('is HTTPS_PROXY for an https:// or wss:// control plane, HTTP_PROXY for http:// or ws://', () => {
    vi.stubEnv('HTTPS_PROXY', 'http://tls-proxy:3128');
    vi.stubEnv('HTTP_PROXY', 'http://plain-proxy:3128');
    expect(shown('https://cp.example/')).toBe('http://tls-proxy:3128');
    expect(shown('wss://cp.example/')).toBe('http://tls-proxy:3128');
    expect(shown('http://cp.example:7400/')).toBe('http://plain-proxy:3128');
    expect(shown('ws://cp.example:7400/')).toBe('http://plain-proxy:3128');
  });

  it('reads the lower-case variables, before the upper-case ones, and ALL_PROXY last', () => {
    vi.stubEnv('https_proxy', 'http://lower:1');
    vi.stubEnv('HTTPS_PROXY', 'http://upper:2');
    vi.stubEnv('ALL_PROXY', 'http://all:3');
    expect(shown('https://cp.example/')).toBe('http://lower:1');
    expect(shown('http://cp.example/')).toBe('http://all:3');
  });

  it('takes a proxy written without a scheme as http://, as curl does', () => {
    vi.stubEnv('HTTPS_PROXY', 'proxy.corp:3128');
    expect(linkProxy('https://cp.example/', undefined)?.url.toString()).toBe(
      'http://proxy.corp:3128/',
    );
  });

  it.each([
    ['cp.example', 'https://cp.example/', ''],
    ['other.example,cp.example', 'https://cp.example/', ''],
    ['.example', 'https://cp.example/', ''],
    ['*.example', 'https://cp.example/', ''],
    ['example', 'https://cp.example/', ''],
    ['*', 'https://cp.example/', ''],
    ['cp.example:443', 'https://cp.example/', ''],
    ['cp.example:7400', 'https://cp.example/', 'http://p:1'],
    ['cp.example:7400', 'http://cp.example:7400/', ''],
    ['127.0.0.1', 'http://127.0.0.1:7400/', ''],
    ['corp.example', 'https://cp.corp.example/', ''],
    ['corp.example:443', 'https://cp.corp.example/', ''],
    ['corp.example:80', 'https://cp.corp.example/', 'http://p:1'],
    ['corp.example', 'https://cp.notcorp.example/', 'http://p:1'],
    ['other.example', 'https://cp.example/', 'http://p:1'],
    ['cp.example.org', 'https://cp.example/', 'http://p:1'],
    ['', 'https://cp.example/', 'http://p:1'],
  ])('with NO_PROXY=%s, the link to %s goes through %j', (noProxy, join, expected) => {
    vi.stubEnv('HTTPS_PROXY', 'http://p:1');
    vi.stubEnv('HTTP_PROXY', 'http://p:1');
    vi.stubEnv('NO_PROXY', noProxy);
    expect(shown(join)).toBe(expected);
  });

  it('honours no_proxy in lower case too', () => {
    vi.stubEnv('HTTPS_PROXY', 'http://p:1');
    vi.stubEnv('no_proxy', 'cp.example');
    expect(shown('https://cp.example/')).toBe('');
  });

  it('is --proxy when given, over the environment and NO_PROXY; --proxy off dials directly', () => {
    vi.stubEnv('HTTPS_PROXY', 'http://env-proxy:1');
    vi.stubEnv('NO_PROXY', '*');
    expect(shown('https://cp.example/', 'http://flag-proxy:2')).toBe('http://flag-proxy:2');
    vi.stubEnv('NO_PROXY', '');
    expect(shown('https://cp.example/', 'off')).toBe('');
    expect(shown('https://cp.example/', '')).toBe('http://env-proxy:1');
  });

  it('keeps credentials for Proxy-Authorization and masks the password wherever it is shown', () => {
    const proxy = linkProxy('https://cp.example/', 'http://ann:s3cret@proxy.corp:3128');
    expect(proxy?.url.username).toBe('ann');
    expect(proxy?.url.password).toBe('s3cret');
    expect(proxy?.shown).toBe('http://ann:***@proxy.corp:3128');
    expect(maskedProxyUrl(new URL('https://proxy.corp/'))).toBe('https://proxy.corp');
  });

  it.each([
    [
      'socks5://ann:s3cret@proxy:1080',
      '--proxy: the host dials through an http:// or https:// proxy, not socks5://',
    ],
    ['http://ann:s3cret@[bad', '--proxy is not a URL (expected http://[user:password@]host:port)'],
  ])('refuses --proxy %s with a message that holds no password', (explicit, message) => {
    expect(() => linkProxy('https://cp.example/', explicit)).toThrow(new ConfigError(message));
  });

  it('names the variable a bad proxy came from', () => {
    vi.stubEnv('HTTPS_PROXY', 'socks5://proxy:1080');
    expect(() => linkProxy('https://cp.example/', undefined)).toThrow(
      new ConfigError(
        'HTTPS_PROXY (or ALL_PROXY): the host dials through an http:// or https:// proxy, not socks5://',
      ),
    );
  });
});
