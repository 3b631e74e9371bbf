import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startServer, type TestServer } from '../../test/support/http-server.ts';

let server: TestServer;
let agentA1: string;
let viewer: string;
let operator: string;

beforeAll(async () => {
  server = await startServer();
  agentA1 = await server.mint({ role: 'agent', agent: 'a1' });
  viewer = await server.mint({ role: 'viewer' });
  operator = await server.mint({ role: 'operator' });
});
afterAll(() => server.close());

describe('authentication', () => {
  it('answers the health check without a token', async () => {
    const response = await server.request('/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      ok: true,
      storage: 'ok',
      failing: [],
      database: 'embedded',
    });
  });

  it('refuses a request without a token with 401 UNAUTHORIZED', async () => {
    const response = await server.post('/api/agents/a1/bash', { command: 'true' }, null);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="jumpseat"');
    expect(await errorOf(response)).toEqual({
      code: 'UNAUTHORIZED',
      message: 'a token is required: send "Authorization: Bearer <token>" or open the login URL',
    });
  });

  it('refuses a wrong token with 401', async () => {
    const response = await server.request('/api/tools', { token: `${server.adminToken}x` });
    expect(response.status).toBe(401);
    expect(await errorOf(response)).toEqual({
      code: 'UNAUTHORIZED',
      message: 'the token is not valid',
    });
  });

  it('refuses an Authorization header that is not a Bearer token', async () => {
    const response = await server.request('/api/tools', {
      headers: { authorization: `Basic ${server.adminToken}` },
    });
    expect(response.status).toBe(401);
    expect((await errorOf(response)).message).toBe(
      'the Authorization header must be "Bearer <token>"',
    );
  });

  it('needs a token even for routes that do not exist', async () => {
    expect((await server.request('/nowhere')).status).toBe(401);
  });
});

describe('authorization', () => {
  it('refuses an agent token on another agent with 403 FORBIDDEN', async () => {
    const response = await server.post('/api/agents/a2/bash', { command: 'true' }, agentA1);
    expect(response.status).toBe(403);
    expect(await errorOf(response)).toEqual({
      code: 'FORBIDDEN',
      message: 'this token may only call agent "a1"',
    });
  });

  it('refuses an agent token on an invalid agent id with 403, before reading the body', async () => {
    const response = await server.post('/api/agents/a%20b/bash', 'not even an object', agentA1);
    expect(response.status).toBe(403);
  });

  it.each([
    ['GET', '/api/sessions'],
    ['GET', '/api/sessions/some-id/calls'],
  ])('refuses an agent token on %s %s with 403', async (method, path) => {
    const response = await server.request(path, { method, token: agentA1 });
    expect(response.status).toBe(403);
    expect(await errorOf(response)).toEqual({
      code: 'FORBIDDEN',
      message: 'role "agent" may not watch shells (admin, operator or viewer may)',
    });
  });

  it.each([
    ['viewer', () => viewer],
    ['operator', () => operator],
  ])('refuses tool calls to a %s token', async (role, token) => {
    const response = await server.post('/api/agents/a1/bash', { command: 'true' }, token());
    expect(response.status).toBe(403);
    expect((await errorOf(response)).message).toBe(`role "${role}" may not make tool calls`);
  });

  it('lets viewers and operators list shells', async () => {
    for (const token of [viewer, operator]) {
      const response = await server.request('/api/sessions', { token });
      expect(response.status).toBe(200);
      expect(Array.isArray(await response.json())).toBe(true);
    }
  });

  it('lets any valid token read the tool definitions', async () => {
    expect((await server.request('/api/tools', { token: agentA1 })).status).toBe(200);
  });
});

describe('browser login', () => {
  /** What the login page does: trade a token for this browser's credential. */
  async function browserCredential(token: string): Promise<string> {
    const response = await server.request('/api/login', { method: 'POST', token });
    expect(response.status).toBe(201);
    return ((await response.json()) as { credential: string }).credential;
  }

  it('serves the login page with no cookie set but the old one cleared, no-store and no-referrer', async () => {
    const response = await server.request(`/login?token=${encodeURIComponent(server.adminToken)}`);
    expect([200, 503]).toContain(response.status); // 503: the web app is not built
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('set-cookie')).toBe(
      'jumpseat_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict',
    );
  });

  it('answers a bad login link with a 401 page and no cookie', async () => {
    const response = await server.request('/login?token=wrong');
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.text()).toContain('This login link is not valid.');
  });

  it('answers a login link without a token with the same 401 page', async () => {
    const response = await server.request('/login');
    expect(response.status).toBe(401);
    expect(await response.text()).toContain('This login link is not valid.');
  });

  it('authenticates browser requests by the traded credential, which is not the token', async () => {
    const credential = await browserCredential(server.adminToken);
    expect(credential).toMatch(/^jsb_[A-Za-z0-9_-]{40,}$/);
    const sessions = await server.request('/api/sessions', { token: credential });
    expect(sessions.status).toBe(200);
  });

  it('never authenticates by a cookie, even one holding the admin token', async () => {
    const cookie = `jumpseat_token=${server.adminToken}`;
    const sessions = await server.request('/api/sessions', { headers: { cookie } });
    expect(sessions.status).toBe(401);
  });

  it('refuses the data behind the web app without a credential', async () => {
    const sessions = await server.request('/api/sessions');
    expect(sessions.status).toBe(401);
    expect((await errorOf(sessions)).message).toBe(
      'a token is required: send "Authorization: Bearer <token>" or open the login URL',
    );
  });

  it('refuses the data behind the web app to an agent token traded for a credential', async () => {
    const sessions = await server.request('/api/sessions', {
      token: await browserCredential(agentA1),
    });
    expect(sessions.status).toBe(403);
    expect((await errorOf(sessions)).message).toBe(
      'role "agent" may not watch shells (admin, operator or viewer may)',
    );
  });

  it('refuses to trade a credential for another (only a token is traded)', async () => {
    const credential = await browserCredential(viewer);
    const response = await server.request('/api/login', { method: 'POST', token: credential });
    expect(response.status).toBe(400);
  });

  it('signs one browser out without touching the token or other browsers', async () => {
    const first = await browserCredential(operator);
    const second = await browserCredential(operator);
    expect((await server.request('/api/login', { method: 'DELETE', token: first })).status).toBe(
      204,
    );
    const refused = await server.request('/api/me', { token: first });
    expect(refused.status).toBe(401);
    expect((await errorOf(refused)).message).toBe(
      'this browser was signed out; open the login URL again',
    );
    expect((await server.request('/api/me', { token: second })).status).toBe(200);
    expect((await server.request('/api/me', { token: operator })).status).toBe(200);
  });

  it('asks before switching identity unless the person opened the link themselves', async () => {
    const url = `/login?token=${encodeURIComponent(viewer)}`;
    for (const [site, meta] of [
      ['none', 'own'],
      ['same-origin', 'own'],
      ['cross-site', 'ask'],
      ['same-site', 'ask'],
      [undefined, 'ask'],
    ] as const) {
      const response = await server.request(url, {
        headers: site === undefined ? {} : { 'sec-fetch-site': site },
      });
      if (response.status === 503) continue; // the web app is not built
      expect(await response.text()).toContain(`<meta name="jumpseat-login" content="${meta}">`);
    }
  });
});

describe('WebSocket tickets', () => {
  async function ticket(token: string): Promise<string> {
    const response = await server.request('/api/live-tickets', { method: 'POST', token });
    expect(response.status).toBe(201);
    return ((await response.json()) as { ticket: string }).ticket;
  }

  it('are refused on plain HTTP requests', async () => {
    const response = await server.request(`/api/sessions?ticket=${await ticket(viewer)}`);
    expect(response.status).toBe(401);
  });

  it('open one dashboard socket, once', async () => {
    const { WebSocket } = await import('ws');
    const open = (url: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(url);
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.on('error', () => resolve(0));
      });
    const wsOrigin = server.origin.replace(/^http/, 'ws');
    const single = await ticket(viewer);
    expect(await open(`${wsOrigin}/api/live?ticket=${single}`)).toBe(101);
    expect(await open(`${wsOrigin}/api/live?ticket=${single}`)).toBe(401);
    expect(await open(`${wsOrigin}/api/live`)).toBe(401);
  });
});
