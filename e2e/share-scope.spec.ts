// A share link's token reaches its one shell and nothing else: every other shell, route and
// WebSocket answers 403, while its own shell's routes and live stream work. In a browser,
// the dashboard sends the holder back to their shell.
import WebSocket from 'ws';
import type { SessionInfo, ShareCreated } from '../shared/src/api.ts';
import { expect, type Jumpseat, test } from './support/fixtures.ts';

/** Opens a WebSocket with `token`; resolves with the HTTP status of a refused upgrade, or 101 and the first message. */
function connect(
  jumpseat: Jumpseat,
  path: string,
  token: string,
): Promise<{ status: number; first?: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${jumpseat.origin.replace(/^http/, 'ws')}${path}`, {
      headers: { authorization: `Bearer ${token}`, origin: jumpseat.origin },
    });
    socket.on('unexpected-response', (_request, response) => {
      resolve({ status: response.statusCode ?? 0 });
      socket.terminate();
    });
    socket.on('message', (data) => {
      resolve({ status: 101, first: String(data) });
      socket.close();
    });
    socket.on('error', reject);
  });
}

test('a scoped token is refused everywhere but its own shell', async ({
  page,
  jumpseat,
  agent,
}) => {
  const opened = await jumpseat.api('/api/sessions', {
    method: 'POST',
    body: JSON.stringify({ dialect: 'bash' }),
  });
  expect(opened.status).toBe(201);
  const own = (await opened.json()) as SessionInfo;
  const created = await jumpseat.api(`/api/sessions/${own.id}/shares`, {
    method: 'POST',
    body: JSON.stringify({ role: 'operator' }),
  });
  expect(created.status).toBe(201);
  const { token, url } = (await created.json()) as ShareCreated;
  await jumpseat.bashOk(agent, 'echo other');
  const other = await jumpseat.sessionOf(agent);

  const as = (path: string, init: RequestInit = {}) => jumpseat.api(path, init, token);
  const refused: [string, RequestInit?][] = [
    ['/api/sessions'],
    [`/api/sessions/${other.id}`],
    [`/api/sessions/${other.id}/calls`],
    [`/api/sessions/${own.id}/shares`],
    ['/api/sessions', { method: 'POST', body: JSON.stringify({ dialect: 'bash' }) }],
    [`/api/sessions/${own.id}/hand-off`, { method: 'POST', body: '{"agent":"x"}' }],
    [`/api/agents/${agent}/bash`, { method: 'POST', body: '{"command":"echo no"}' }],
    ['/api/tokens', { method: 'POST', body: '{"role":"admin"}' }],
    ['/metrics'],
  ];
  for (const [path, init] of refused) {
    expect((await as(path, init)).status, `${init?.method ?? 'GET'} ${path}`).toBe(403);
  }
  expect((await connect(jumpseat, '/api/live', token)).status).toBe(403);
  expect((await connect(jumpseat, `/api/sessions/${other.id}/live`, token)).status).toBe(403);

  const me = await as('/api/me');
  expect(me.status).toBe(200);
  expect(await me.json()).toMatchObject({ scope: own.id, canControl: true });
  const mine = await as(`/api/sessions/${own.id}`);
  expect(mine.status).toBe(200);
  expect(((await mine.json()) as SessionInfo).id).toBe(own.id);
  expect((await as(`/api/sessions/${own.id}/calls`)).status).toBe(200);
  const live = await connect(jumpseat, `/api/sessions/${own.id}/live`, token);
  expect(live.status).toBe(101);
  expect(JSON.parse(live.first ?? '{}')).toMatchObject({ type: 'hello', session: { id: own.id } });

  // In a browser the link lands on its shell, and the dashboard sends it back there.
  await page.goto(url);
  await expect(page).toHaveURL(`${jumpseat.origin}/sessions/${own.id}`);
  await page.goto('/');
  await expect(page).toHaveURL(`${jumpseat.origin}/sessions/${own.id}`);

  expect((await jumpseat.api(`/api/sessions/${own.id}`, { method: 'DELETE' })).status).toBe(204);
});
