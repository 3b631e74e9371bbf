/**
 * jumpseat behind Debian's nginx under /jumpseat/, configured as a deployer would: the
 * WebSocket upgrade passed on, and `proxy_pass` left to rewrite Host to the upstream. One
 * server block relies on --public-url (nothing forwarded); the other forwards the browser's
 * host to a server that trusts the proxy (--trust-proxy). Through each: the web app loads
 * from the sub-path alone, a live shell shows an agent's output, and an MCP request the
 * page sends (its Origin checked) is answered; another site's is refused.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { freePort } from '../server/test/support/host-cluster.ts';
import { expect, screenOf, test } from './support/fixtures.ts';
import { findNginx, type NginxProcess, startNginx, stopNginx } from './support/nginx.ts';
import {
  type ServerProcess,
  startServerProcess,
  stopServerProcess,
} from './support/server-process.ts';

const nginx = findNginx();
const ci = process.env.CI === 'true' || process.env.CI === '1';
if (nginx === undefined && ci) {
  throw new Error('nginx-proxy.spec: nginx is missing (apt-get install -y nginx); CI=true fails');
}
if (nginx === undefined) {
  // In CI a missing dependency is a failure, never a skip.
  if (process.env.CI === 'true' || process.env.CI === '1') {
    throw new Error('nginx-proxy.spec: nginx must be installed in CI (apt-get install -y nginx)');
  }
  process.stdout.write(
    'nginx-proxy.spec: NOT RUN — nginx is not installed (apt-get install -y nginx)\n',
  );
}
test.skip(nginx === undefined, 'nginx is not installed (apt-get install -y nginx)');

/** What both server blocks share: the sub-path, WebSocket upgrade, streamed responses. */
function location(upstream: string, extra: readonly string[]): string {
  return [
    '    location /jumpseat/ {',
    // No URI part: the path goes on as it came, and Host becomes the upstream's (the default).
    `      proxy_pass ${upstream};`,
    '      proxy_http_version 1.1;',
    '      proxy_set_header Upgrade $http_upgrade;',
    '      proxy_set_header Connection $connection_upgrade;',
    // MCP calls answer as a stream, and live sockets stay open for hours.
    '      proxy_buffering off;',
    '      proxy_read_timeout 1h;',
    ...extra.map((line) => `      ${line}`),
    '    }',
  ].join('\n');
}

let root: string;
let server: ServerProcess | undefined;
let proxy: NginxProcess | undefined;
/** `http://127.0.0.1:PORT`: nginx with --public-url, and nginx forwarding the host. */
let publicOrigin: string;
let forwardingOrigin: string;
const token = `js_e2e_${randomBytes(18).toString('hex')}`;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  root = mkdtempSync(join(tmpdir(), 'jumpseat-e2e-nginx-'));
  const [publicPort, forwardingPort] = [await freePort(), await freePort()];
  publicOrigin = `http://127.0.0.1:${publicPort}`;
  forwardingOrigin = `http://127.0.0.1:${forwardingPort}`;
  mkdirSync(join(root, 'workspace'));
  server = await startServerProcess({
    dataDir: join(root, 'data'),
    workspace: join(root, 'workspace'),
    token,
    // The base path comes from the public URL's path.
    flags: ['--public-url', `${publicOrigin}/jumpseat/`, '--trust-proxy', '127.0.0.1'],
  });
  const upstream = server.origin.replace(/\/$/, '');
  proxy = await startNginx(
    nginx ?? 'nginx',
    join(root, 'nginx'),
    [
      '  map $http_upgrade $connection_upgrade { default upgrade; "" close; }',
      '  server {',
      `    listen 127.0.0.1:${publicPort};`,
      location(upstream, []),
      '  }',
      '  server {',
      `    listen 127.0.0.1:${forwardingPort};`,
      location(upstream, [
        'proxy_set_header X-Forwarded-Host $http_host;',
        'proxy_set_header X-Forwarded-Proto $scheme;',
        'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
      ]),
      '  }',
    ].join('\n'),
    [publicPort, forwardingPort],
  );
});

test.afterAll(async () => {
  if (proxy !== undefined) await stopNginx(proxy);
  if (server !== undefined) await stopServerProcess(server);
  rmSync(root, { recursive: true, force: true });
});

async function bash(origin: string, agent: string, command: string): Promise<string> {
  const response = await fetch(`${origin}/jumpseat/api/agents/${agent}/bash`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { output: string }).output;
}

/** An MCP `initialize` sent by the page itself, so the browser sets its Origin. */
function mcpFromPage(page: Page, agent: string): Promise<{ status: number; body: string }> {
  return page.evaluate(
    async ([bearer, as]) => {
      const response = await fetch(new URL('mcp', document.baseURI), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${bearer}`,
          'x-jumpseat-agent': as,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'browser-page', version: '1.0.0' },
          },
        }),
      });
      return { status: response.status, body: await response.text() };
    },
    [token, agent] as const,
  );
}

for (const [name, origin] of [
  ['with --public-url, Host rewritten by proxy_pass', () => publicOrigin],
  ['forwarding the host to a server that trusts the proxy', () => forwardingOrigin],
] as const) {
  test(`behind nginx under /jumpseat/ ${name}: app, live shell, MCP from the page`, async ({
    page,
  }) => {
    const base = `${origin()}/jumpseat/`;
    const agent = `proxied-${randomBytes(3).toString('hex')}`;
    expect(await bash(origin(), agent, 'echo ready')).toBe('ready');
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(base)) outside.push(request.url());
    });

    await page.goto(`${base}login?token=${encodeURIComponent(token)}`);
    await expect(page).toHaveURL(base);
    const row = page.locator(`[data-testid="session-row"][data-agent="${agent}"]`);
    await expect(row).toHaveCount(1);
    await row.getByRole('link').first().click();
    await expect(page).toHaveURL(new RegExp(`^${base.replaceAll('.', '\\.')}sessions/[^/]+$`));
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
    expect(await bash(origin(), agent, 'echo through-nginx-$((6*7))')).toBe('through-nginx-42');
    await expect.poll(() => screenOf(page)).toContain('through-nginx-42');

    const mcp = await mcpFromPage(page, agent);
    expect(mcp.status, mcp.body).toBe(200);
    expect(mcp.body).toContain('"serverInfo"');
    // Every page, script, style, API call and socket went through the sub-path.
    expect(outside).toEqual([]);

    const foreign = await fetch(`${base}mcp`, {
      method: 'POST',
      headers: {
        origin: 'http://evil.example',
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
  });
}
