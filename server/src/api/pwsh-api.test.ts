/**
 * The pwsh route over HTTP: the README's curl example returns what the README shows, and a
 * server without PowerShell says what to do about it. The first part is skipped, with one
 * line saying why, where pwsh is not installed (see pwsh-check.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startServer, type TestServer } from '../../test/support/http-server.ts';
import { PWSH } from '../../test/support/pwsh.ts';

describe.skipIf(PWSH === null)('POST /api/agents/:agent/pwsh', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ flags: ['--pwsh', PWSH ?? ''] });
  });
  afterAll(() => server.close());

  it("returns the README example's output, and the shell persists", async () => {
    // The same body as the README's curl example.
    const command =
      'Set-Location /tmp; "hello from $(Get-Location)"; Get-Item /nope; sh -c "echo native; exit 3"';
    const response = await server.post('/api/agents/demo/pwsh', { command });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      output:
        'hello from /tmp\n' +
        "Get-Item: Cannot find path '/nope' because it does not exist.\n" +
        'native\n' +
        '[exit code: 3]',
    });
    const again = await server.post('/api/agents/demo/pwsh', { command: '(Get-Location).Path' });
    expect(await again.json()).toEqual({ output: '/tmp' });
  });

  it('lists the pwsh tool', async () => {
    const response = await server.request('/api/tools', { token: server.adminToken });
    const names = ((await response.json()) as { name: string }[]).map((tool) => tool.name);
    expect(names).toEqual(['bash', 'pwsh']);
  });
});

describe('a server without pwsh', () => {
  let server: TestServer;
  let empty: string;
  beforeAll(async () => {
    empty = mkdtempSync(join(tmpdir(), 'jumpseat-no-pwsh-'));
    server = await startServer({ shellEnv: { PATH: empty, HOME: empty } });
  });
  afterAll(async () => {
    await server.close();
    rmSync(empty, { recursive: true, force: true });
  });

  it('answers a pwsh call with 404 saying how to get pwsh', async () => {
    const response = await server.post('/api/agents/a1/pwsh', { command: '$null' });
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toEqual({
      code: 'NOT_FOUND',
      message:
        'no dialect "pwsh" on this server (PowerShell 7 was not found: put pwsh on PATH, ' +
        'install it with `dotnet tool install --global PowerShell`, or set JUMPSEAT_PWSH); ' +
        'available: bash',
    });
  });
});
