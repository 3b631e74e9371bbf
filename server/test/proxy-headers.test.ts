/**
 * Behind a reverse proxy, over real HTTP on loopback: the Origin check accepts the public
 * URL's origin, and the forwarded host only from a proxy named with --trust-proxy (off by
 * default, so a client that forges X-Forwarded-Host gains nothing). POST /mcp checks the
 * origin before any token: 403 means the origin was refused, 401 that it passed.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/http-server.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** POST /mcp as nginx's default proxy_pass sends it: Host rewritten to the upstream. */
function postMcp(origin: string, headers: Record<string, string>): Promise<number> {
  const upstream = new URL(server?.origin ?? '');
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: 'POST',
        path: '/mcp',
        headers: {
          host: upstream.host,
          origin,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    sent.on('error', reject);
    sent.end('{}');
  });
}

const FORWARDED = { 'x-forwarded-host': 'jumpseat.example', 'x-forwarded-proto': 'https' };

describe('the Origin check behind a proxy', () => {
  it('ignores X-Forwarded-Host unless a proxy is trusted', async () => {
    server = await startServer();
    expect(await postMcp('https://jumpseat.example', FORWARDED)).toBe(403);
  });

  it('accepts the forwarded host from a trusted proxy, and only from one', async () => {
    server = await startServer({ flags: ['--trust-proxy', '127.0.0.1'] });
    expect(await postMcp('https://jumpseat.example', FORWARDED)).toBe(401);
    expect(await postMcp('https://evil.example', FORWARDED)).toBe(403);
    await server.close();
    server = await startServer({ flags: ['--trust-proxy', '10.0.0.0/8'] });
    expect(await postMcp('https://jumpseat.example', FORWARDED)).toBe(403);
  });

  it("accepts the public URL's origin with Host rewritten, without trusting any proxy", async () => {
    server = await startServer({ flags: ['--public-url', 'https://jumpseat.example/tools/'] });
    expect(await postMcp('https://jumpseat.example', {})).toBe(401);
    expect(await postMcp('http://jumpseat.example', {})).toBe(403);
  });
});
