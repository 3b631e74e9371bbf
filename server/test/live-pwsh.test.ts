/**
 * The jump seat on a pwsh shell: live output, take-over and hand-back, with the engine (not
 * the controller's terminal) answering pwsh's cursor queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { startServer, type TestServer } from './support/http-server.ts';
import { LiveClient } from './support/live-client.ts';
import { PWSH } from './support/pwsh.ts';

describe.skipIf(PWSH === null)('a pwsh shell, live', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ flags: ['--pwsh', PWSH ?? ''] });
  });
  afterAll(async () => {
    await server.close();
  });

  const call = async (command: string) => {
    const response = await server.post('/api/agents/live-ps/pwsh', { command });
    return { status: response.status, body: (await response.json()) as { output?: string } };
  };

  it('streams, hands the controls to a human, and tells the agent what they ran', async () => {
    expect((await call("'ready'")).body.output).toBe('ready');
    const sessions = (await (
      await server.request('/api/sessions', { token: server.adminToken })
    ).json()) as SessionInfo[];
    const session = sessions.find((s) => s.agent === 'live-ps' && s.dialect === 'pwsh');
    const client = await LiveClient.connect(
      `${server.origin.replace('http', 'ws')}/api/sessions/${session?.id}/live`,
      { token: server.adminToken },
    );
    await client.next('snapshot');
    expect((await call('1..3 | ForEach-Object { "item $_" }')).body.output).toBe(
      'item 1\nitem 2\nitem 3',
    );
    await client.until(() => client.outputText().includes('item 3'), 'the output');
    expect(await client.screenText()).toMatch(/PS \/.*> 1\.\.3 \| ForEach-Object/);

    client.send({ type: 'take_control' });
    await client.next('control', (m) => m.controller !== null);
    expect((await call("'agent'")).status).toBe(409);
    // A browser terminal answers pwsh's cursor queries too; those answers must not be typed.
    client.send({ type: 'input', data: '\x1b[5;1R$fromHuman = 42\r' });
    await client.until(() => client.outputText().includes('$fromHuman = 42'), 'the echo');
    client.send({ type: 'release_control' });
    await client.next('control', (m) => m.controller === null);
    expect((await call('"value: $fromHuman"')).body.output).toBe(
      '[a human used this shell: $fromHuman = 42]\nvalue: 42',
    );
    await client.close();
  });

  it("opens a person's own pwsh shell, theirs to type in, and hands it to an agent", async () => {
    const opened = await server.post('/api/sessions', { dialect: 'pwsh' });
    expect(opened.status).toBe(201);
    const shell = (await opened.json()) as SessionInfo;
    expect(shell).toMatchObject({ agent: null, owner: 'admin', dialect: 'pwsh' });
    const client = await LiveClient.connect(
      `${server.origin.replace('http', 'ws')}/api/sessions/${shell.id}/live`,
      { token: server.adminToken },
    );
    await client.next('control', (m) => m.controller !== null);
    client.send({ type: 'input', data: '$handed = "from-" + (6*7)\r' });
    client.send({ type: 'input', data: 'Write-Output $handed\r' });
    await client.until(() => client.outputText().includes('from-42'), 'the typed output');
    const handed = await server.post(`/api/sessions/${shell.id}/hand-off`, { agent: 'ps-heir' });
    expect(handed.status).toBe(200);
    const response = await server.post('/api/agents/ps-heir/pwsh', { command: '$handed' });
    expect(((await response.json()) as { output: string }).output).toBe(
      '[a human used this shell: $handed = "from-" + (6*7); Write-Output $handed]\nfrom-42',
    );
    await client.close();
  });
});
