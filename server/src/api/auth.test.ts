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
    expect(await response.json()).toEqual({ ok: true });
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

describe('login cookie', () => {
  it('sets an HttpOnly, SameSite=Strict cookie and 303-redirects to /', async () => {
    const response = await server.request(`/login?token=${encodeURIComponent(server.adminToken)}`);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('set-cookie')).toBe(
      `jumpseat_token=${server.adminToken}; Path=/; HttpOnly; SameSite=Strict`,
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

  it('authenticates browser requests by the cookie', async () => {
    const cookie = `jumpseat_token=${server.adminToken}`;
    const sessions = await server.request('/api/sessions', { headers: { cookie } });
    expect(sessions.status).toBe(200);
  });

  it('refuses the data behind the web app without a cookie', async () => {
    const sessions = await server.request('/api/sessions');
    expect(sessions.status).toBe(401);
    expect((await errorOf(sessions)).message).toBe(
      'a token is required: send "Authorization: Bearer <token>" or open the login URL',
    );
  });

  it('refuses the data behind the web app to an agent token in the cookie', async () => {
    const sessions = await server.request('/api/sessions', {
      headers: { cookie: `jumpseat_token=${agentA1}` },
    });
    expect(sessions.status).toBe(403);
    expect((await errorOf(sessions)).message).toBe(
      'role "agent" may not watch shells (admin, operator or viewer may)',
    );
  });

  it('refuses a cookie-authenticated POST from another origin, or with no Origin', async () => {
    const cookie = `jumpseat_token=${server.adminToken}`;
    for (const origin of ['http://127.0.0.1:1', undefined]) {
      const response = await server.request('/api/tokens', {
        method: 'POST',
        headers: { cookie, ...(origin === undefined ? {} : { origin }) },
        body: JSON.stringify({ role: 'viewer' }),
      });
      expect(response.status).toBe(403);
      expect((await errorOf(response)).message).toBe(
        'cross-origin request refused: send the token as "Authorization: Bearer <token>"',
      );
    }
  });

  it('accepts a cookie-authenticated POST from the server own origin', async () => {
    const response = await server.request('/api/tokens', {
      method: 'POST',
      headers: { cookie: `jumpseat_token=${server.adminToken}`, origin: server.origin },
      body: JSON.stringify({ role: 'viewer' }),
    });
    expect(response.status).toBe(201);
  });
});
