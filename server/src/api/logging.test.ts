import { describe, expect, it } from 'vitest';
import { startServer } from '../../test/support/http-server.ts';
import { loggerOptions } from './logging.ts';

describe('server log', () => {
  it('logs requests by path and never a token, whichever way it came', async () => {
    const lines: string[] = [];
    const server = await startServer({
      logger: { level: 'trace', destination: { write: (line) => lines.push(line) } },
    });
    try {
      const token = server.adminToken;
      await server.request(`/login?token=${encodeURIComponent(token)}`);
      await server.request(`/login?token=${encodeURIComponent(token)}x`);
      await server.request('/api/tools', { token });
      await server.request('/api/tools', { headers: { cookie: `jumpseat_token=${token}` } });
      await server.request(`/missing?token=${token}`, { token });
      const minted = await server.mint({ role: 'viewer' });
      await server.request('/api/sessions', { token: `${minted}` });
      await server.request('/api/sessions', { token: `${minted}-wrong` });
      const login = await server.request('/api/login', { method: 'POST', token: minted });
      const { credential } = (await login.json()) as { credential: string };
      await server.request('/api/sessions', { token: credential });
      const issued = await server.request('/api/live-tickets', {
        method: 'POST',
        token: credential,
      });
      const { ticket } = (await issued.json()) as { ticket: string };
      await server.request(`/api/live?ticket=${ticket}`);

      const log = lines.join('');
      expect(log).toContain('"url":"/login"');
      expect(log).toContain('"url":"/missing"');
      expect(log).not.toContain(token);
      expect(log).not.toContain(minted);
      expect(log).not.toContain(credential);
      expect(log).not.toContain(ticket);
      expect(log.toLowerCase()).not.toContain('authorization');
    } finally {
      await server.close();
    }
  });

  it('is off for level "off", the default', () => {
    expect(loggerOptions({ level: 'off' })).toBe(false);
  });
});
