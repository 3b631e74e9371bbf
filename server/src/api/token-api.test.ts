import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startServer, type TestServer } from '../../test/support/http-server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe('POST /api/tokens', () => {
  it('mints an agent token that can call its own agent and no other', async () => {
    const response = await server.post('/api/tokens', { role: 'agent', agent: 'a1', name: 'ci' });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const reply = (await response.json()) as Record<string, unknown>;
    expect(reply).toEqual({
      token: expect.stringMatching(/^js_/),
      role: 'agent',
      agent: 'a1',
      name: 'ci',
    });
    const token = String(reply.token);

    const own = await server.post('/api/agents/a1/bash', { command: 'echo mine' }, token);
    expect(await own.json()).toEqual({ output: 'mine' });
    const other = await server.post('/api/agents/a2/bash', { command: 'echo theirs' }, token);
    expect(other.status).toBe(403);
  });

  it('answers an agent token minted with placement labels with its labels', async () => {
    const response = await server.post('/api/tokens', {
      role: 'agent',
      agent: 'gpu-bot',
      name: 'gpu bot',
      labels: { gpu: '1', zone: 'eu' },
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({
      token: expect.stringMatching(/^js_/),
      role: 'agent',
      agent: 'gpu-bot',
      name: 'gpu bot',
      labels: { gpu: '1', zone: 'eu' },
    });
  });

  it('mints a viewer token named by its role when no name is given', async () => {
    const response = await server.post('/api/tokens', { role: 'viewer' });
    expect(await response.json()).toEqual({
      token: expect.stringMatching(/^js_[A-Za-z0-9_-]{43}$/),
      role: 'viewer',
      name: 'viewer',
    });
  });

  it.each([
    ['an operator', 'operator'],
    ['a viewer', 'viewer'],
  ])('refuses minting to %s with 403', async (_who, role) => {
    const token = await server.mint({ role });
    const response = await server.post('/api/tokens', { role: 'admin' }, token);
    expect(response.status).toBe(403);
    expect(await errorOf(response)).toEqual({
      code: 'FORBIDDEN',
      message: 'only the admin may mint tokens',
    });
  });

  it('refuses minting to an agent token with 403', async () => {
    const token = await server.mint({ role: 'agent', agent: 'a9' });
    expect((await server.post('/api/tokens', { role: 'viewer' }, token)).status).toBe(403);
  });

  it.each([
    [{ role: 'agent' }, 'role "agent" requires "agent" (the agent id)'],
    [{ role: 'viewer', agent: 'a1' }, '"agent" is only allowed with role "agent", not "viewer"'],
    [
      { role: 'agent', agent: 'no spaces' },
      'agent is not valid: an agent id is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit',
    ],
    [{ role: 'root' }, 'role must be one of "admin", "operator", "viewer", "agent", "host"'],
    [{ role: 7 }, 'role must be one of "admin", "operator", "viewer", "agent"'],
    [{}, 'request body is missing "role"'],
    [{ role: 'viewer', name: '' }, 'name must not be empty'],
    [{ role: 'viewer', name: 'n'.repeat(101) }, 'name must have at most 100 characters'],
    [{ role: 'viewer', expires: 1 }, 'request body has unexpected field "expires"'],
    [[], 'request body must be a JSON object'],
  ])('refuses %j with 400: %s', async (body, message) => {
    const response = await server.post('/api/tokens', body);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual({ code: 'BAD_REQUEST', message });
  });

  it('keeps minted tokens across a restart on the same data dir', async () => {
    const first = await startServer();
    const token = await first.mint({ role: 'operator', name: 'night shift' });
    await first.close({ keepData: true });
    const second = await startServer({ dataDir: first.config.dataDir });
    try {
      expect(second.adminToken).toBe(first.adminToken);
      expect((await second.request('/api/sessions', { token })).status).toBe(200);
    } finally {
      // Removes the data dir the first one made and kept.
      await second.close();
    }
  });
});
