import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserSessions } from '../auth/browser-sessions.ts';
import { LiveTickets } from '../auth/live-tickets.ts';
import { TokenStore } from '../auth/token-store.ts';
import { authHook } from './auth-hook.ts';
import { errorReplies } from './error-replies.ts';
import { webApp, webAppSecurityPolicy } from './web-app.ts';

const INDEX_HTML =
  '<!doctype html><title>jumpseat</title><script src="/assets/app-1234.js"></script>';
const ADMIN_TOKEN = 'js_web_app_test_admin_token_0123456789';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jumpseat-web-'));
  mkdirSync(join(dir, 'built', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'built', 'index.html'), INDEX_HTML);
  writeFileSync(join(dir, 'built', 'assets', 'app-1234.js'), 'console.log(1);');
  mkdirSync(join(dir, 'data'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function appServing(root: string) {
  const app = Fastify();
  app.register(errorReplies);
  app.register(authHook, {
    tokens: TokenStore.open(join(dir, 'data'), ADMIN_TOKEN),
    browsers: BrowserSessions.open(join(dir, 'data')),
    tickets: new LiveTickets(),
  });
  app.register(webApp, { root });
  app.get('/api/secret', async () => ({ ok: true }));
  await app.ready();
  return app;
}

describe('web app serving', () => {
  it('serves the app shell at / and /sessions/:id without a token, with a CSP', async () => {
    const app = await appServing(join(dir, 'built'));
    for (const url of ['/', '/sessions/s-123']) {
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
          "font-src 'self'; connect-src 'self' ws://localhost:80 wss://localhost:80; " +
          "frame-ancestors 'none'; base-uri 'self'; form-action 'none'",
      );
      expect(response.body).toBe(INDEX_HTML);
    }
    await app.close();
  });

  it('serves hashed assets publicly with a long immutable cache', async () => {
    const app = await appServing(join(dir, 'built'));
    const response = await app.inject({ url: '/assets/app-1234.js' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('console.log(1);');
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    await app.close();
  });

  it('names the live sockets in the CSP only for a plain Host header', () => {
    expect(webAppSecurityPolicy('127.0.0.1:7400')).toContain(
      "connect-src 'self' ws://127.0.0.1:7400 wss://127.0.0.1:7400;",
    );
    expect(webAppSecurityPolicy('[::1]:7400')).toContain("connect-src 'self' ws://[::1]:7400 wss");
    expect(webAppSecurityPolicy("evil; script-src 'unsafe-eval'")).toContain("connect-src 'self';");
    expect(webAppSecurityPolicy(undefined)).toContain("connect-src 'self';");
  });

  it('keeps every other route behind the token', async () => {
    const app = await appServing(join(dir, 'built'));
    expect((await app.inject({ url: '/api/secret' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/sessions/a/b' })).statusCode).toBe(401);
    await app.close();
  });

  it('says how to build the app when dist/web is missing', async () => {
    const app = await appServing(join(dir, 'missing'));
    const response = await app.inject({ url: '/' });
    expect(response.statusCode).toBe(503);
    expect(response.body).toContain(
      'The web app has not been built. Run <code>npm run build</code>',
    );
    await app.close();
  });
});
