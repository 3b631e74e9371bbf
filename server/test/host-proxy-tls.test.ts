/**
 * The tunnel a host dials a wss:// control plane through: HTTPS_PROXY's CONNECT carries the
 * TLS to the control plane, whose certificate is checked inside the tunnel
 * (the proxy sees neither the token nor the frames). In process: a TLS WebSocket server, the
 * test's CONNECT proxy, and the agent the host's link uses.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { linkProxy, proxyAgent } from '../src/host/link-proxy.ts';
import { ConnectProxy } from './support/connect-proxy.ts';
import { makeTestCertificate, type TestCertificate } from './support/test-certificate.ts';

const dir = mkdtempSync(join(tmpdir(), 'jumpseat-proxy-tls-'));
const proxy = new ConnectProxy({ credentials: 'build:pa ss' });
let certificate: TestCertificate;
let server: Server;
let sockets: WebSocketServer;
let port = 0;

beforeAll(async () => {
  certificate = makeTestCertificate(dir);
  server = createServer({
    cert: readFileSync(certificate.certFile),
    key: readFileSync(certificate.keyFile),
  });
  sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket, request) =>
    socket.send(`${request.url} ${request.headers.authorization}`),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  await proxy.listen();
});

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(async () => {
  sockets.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await proxy.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Dials `url` as the link does, through the proxy the environment names for `join`. */
function dial(join: string, url: string, ca?: string): Promise<string> {
  const found = linkProxy(join, undefined);
  if (found === undefined) throw new Error('no proxy');
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, {
      agent: proxyAgent(found),
      headers: { authorization: 'Bearer js_host' },
      ...(ca === undefined ? {} : { ca }),
    });
    socket.once('message', (data) => {
      socket.close();
      resolve(String(data));
    });
    socket.once('error', reject);
  });
}

it('carries TLS to a wss:// control plane through HTTPS_PROXY, with percent-encoded credentials', async () => {
  vi.stubEnv('HTTPS_PROXY', proxy.url('build:pa%20ss'));
  vi.stubEnv('HTTP_PROXY', 'http://127.0.0.1:1');
  vi.stubEnv('NO_PROXY', '');
  const before = proxy.tunnelsTo(`localhost:${port}`);
  expect(
    await dial(
      `https://localhost:${port}/`,
      `wss://localhost:${port}/api/hosts/link`,
      certificate.pem,
    ),
  ).toBe('/api/hosts/link Bearer js_host');
  expect(proxy.tunnelsTo(`localhost:${port}`)).toBe(before + 1);
  expect(proxy.requests.at(-1)?.authorization).toBe(
    `Basic ${Buffer.from('build:pa ss').toString('base64')}`,
  );
});

it('still checks the control plane’s certificate inside the tunnel', async () => {
  vi.stubEnv('HTTPS_PROXY', proxy.url('build:pa%20ss'));
  vi.stubEnv('NO_PROXY', '');
  await expect(
    dial(`https://localhost:${port}/`, `wss://localhost:${port}/api/hosts/link`),
  ).rejects.toThrow('self-signed certificate');
});
