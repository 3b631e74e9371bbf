/**
 * The people in charge have the last word (issue 13): the admin, and the owner of a person's
 * own shell, take the controls from whoever holds them and the previous holder is told who; an
 * idle hold goes back to the agent after a warning; the owner disconnects a link holder without
 * revoking the link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo, ShareCreated } from '../../shared/src/api.ts';
import { LIVE_CLOSE } from '../../shared/src/live.ts';
import { startServer, type TestServer } from './support/http-server.ts';
import { LiveClient } from './support/live-client.ts';

/** Short, so the idle hand-back happens within the test; the warning comes at half of it. */
const IDLE_MS = 1500;

let server: TestServer;
let ann: string;
let bob: string;

beforeAll(async () => {
  server = await startServer({ flags: ['--control-idle-ms', String(IDLE_MS)] });
  ann = await server.mint({ role: 'operator', name: 'Ann' });
  bob = await server.mint({ role: 'operator', name: 'Bob' });
});
afterAll(() => server.close());

async function agentShell(agent: string): Promise<SessionInfo> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command: 'true' });
  expect(response.status).toBe(200);
  const sessions = (await (
    await server.request('/api/sessions', { token: server.adminToken })
  ).json()) as SessionInfo[];
  const found = sessions.find((s) => s.agent === agent);
  if (found === undefined) throw new Error('no shell');
  return found;
}

async function join(id: string, token: string): Promise<LiveClient> {
  const client = await LiveClient.connect(
    `${server.origin.replace('http', 'ws')}/api/sessions/${id}/live`,
    { token },
  );
  await client.next('snapshot');
  return client;
}

async function hold(client: LiveClient): Promise<string> {
  const hello = await client.next('hello');
  client.send({ type: 'take_control' });
  await client.next('control', (m) => m.controller?.id === hello.you.id);
  return hello.you.id;
}

describe('taking the controls back', () => {
  it("lets the admin take an agent's shell from the operator holding it; the operator is told", async () => {
    const shell = await agentShell('seize-1');
    const annPage = await join(shell.id, ann);
    const annId = await hold(annPage);
    const adminPage = await join(shell.id, server.adminToken);
    expect((await adminPage.next('hello')).inCharge).toBe(true);
    expect((await annPage.next('hello')).inCharge).toBe(false);
    adminPage.send({ type: 'take_control' });
    const taken = await annPage.next('control', (m) => m.controller?.name === 'admin');
    expect(taken.takenFrom?.id).toBe(annId);
    expect(taken.takenFrom?.name).toBe('Ann');
    // Ann has no last word: her take is refused while the admin holds the controls.
    const before = annPage.messages.length;
    annPage.send({ type: 'take_control' });
    const refused = await annPage.next('error', () => true, before);
    expect(refused.message).toBe('admin holds the controls');
    adminPage.send({ type: 'release_control' });
    await adminPage.next('control', (m) => m.controller === null);
    await annPage.close();
    await adminPage.close();
  });

  it('refuses an operator who is not in charge the same take-over', async () => {
    const shell = await agentShell('seize-2');
    const annPage = await join(shell.id, ann);
    await hold(annPage);
    const bobPage = await join(shell.id, bob);
    const before = bobPage.messages.length;
    bobPage.send({ type: 'take_control' });
    expect((await bobPage.next('error', () => true, before)).message).toBe(
      'Ann holds the controls',
    );
    await annPage.close();
    await bobPage.close();
  });

  it("lets a person's own shell's owner take it back from a link holder they let type", async () => {
    const opened = await server.post('/api/sessions', { dialect: 'bash' }, ann);
    const shell = (await opened.json()) as SessionInfo;
    const link = (await (
      await server.post(`/api/sessions/${shell.id}/shares`, { role: 'operator' }, ann)
    ).json()) as ShareCreated;
    const owner = await join(shell.id, ann);
    const ownerHello = await owner.next('hello');
    expect(ownerHello.inCharge).toBe(true);
    await owner.next('control', (m) => m.controller?.name === 'Ann');
    owner.send({ type: 'release_control' });
    await owner.next('control', (m) => m.controller === null);
    const guest = await join(shell.id, link.token);
    const guestId = await hold(guest);
    expect((await guest.next('hello')).you.link).toBe(true);
    owner.send({ type: 'take_control' });
    const taken = await guest.next('control', (m) => m.controller?.name === 'Ann');
    expect(taken.takenFrom?.id).toBe(guestId);
    await owner.close();
    await guest.close();
  });
});

describe('an idle hold', () => {
  it('warns, then hands the shell back to the agent, whose next call runs', async () => {
    const shell = await agentShell('idle-1');
    const annPage = await join(shell.id, ann);
    await hold(annPage);
    const refused = await server.post('/api/agents/idle-1/bash', { command: 'echo hi' });
    expect(refused.status).toBe(409);
    const warning = await annPage.next('control_idle');
    expect(warning.controller.name).toBe('Ann');
    expect(warning.releaseInMs).toBe(IDLE_MS / 2);
    const back = await annPage.next('control', (m) => m.reason === 'idle');
    expect(back.controller).toBeNull();
    const after = await server.post('/api/agents/idle-1/bash', { command: 'echo hi' });
    expect(after.status).toBe(200);
    expect(((await after.json()) as { output: string }).output).toBe('hi');
    await annPage.close();
  });

  it('counts from the last keystroke', async () => {
    const shell = await agentShell('idle-2');
    const annPage = await join(shell.id, ann);
    await hold(annPage);
    // Typing every half limit keeps the hold; each key resets the count.
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 2));
      annPage.send({ type: 'input', data: ' ' });
    }
    expect(annPage.messages.some((m) => m.type === 'control' && m.reason === 'idle')).toBe(false);
    await annPage.next('control', (m) => m.controller === null && m.reason === 'idle');
    await annPage.close();
  });
});

describe('disconnecting a link holder', () => {
  it('ends their connection, not their link; only the owner or the admin may', async () => {
    const opened = await server.post('/api/sessions', { dialect: 'bash' }, ann);
    const shell = (await opened.json()) as SessionInfo;
    const link = (await (
      await server.post(`/api/sessions/${shell.id}/shares`, { role: 'viewer' }, ann)
    ).json()) as ShareCreated;
    const owner = await join(shell.id, ann);
    const guest = await join(shell.id, link.token);
    const guestId = (await guest.next('hello')).you.id;
    const ownId = (await owner.next('hello')).you.id;
    // Not a link holder: the owner's own connection cannot be disconnected this way.
    const before = owner.messages.length;
    owner.send({ type: 'disconnect_viewer', viewer: ownId });
    expect((await owner.next('error', () => true, before)).code).toBe('NO_VIEWER');
    const bystander = await join(shell.id, link.token);
    const tried = bystander.messages.length;
    bystander.send({ type: 'disconnect_viewer', viewer: guestId });
    expect((await bystander.next('error', () => true, tried)).code).toBe('FORBIDDEN');
    owner.send({ type: 'disconnect_viewer', viewer: guestId });
    await guest.until(() => guest.closed, 'the close');
    expect(guest.closed).toEqual({ code: LIVE_CLOSE.disconnected, reason: 'Ann disconnected you' });
    // The link still works.
    const again = await join(shell.id, link.token);
    expect((await again.next('hello')).you.link).toBe(true);
    const me = await server.request('/api/me', { token: link.token });
    expect(me.status).toBe(200);
    await owner.close();
    await again.close();
    await bystander.close();
  });
});
