/**
 * People on the control plane watch and take over shells of joined hosts, relayed over the
 * host's link: real processes on loopback (a pure control plane and one `jumpseat host`).
 * The dashboard lists the host's shells with their host; a viewer gets the screen and the
 * live output; an admin takes the controls (the agent is refused meanwhile), types, and hands
 * them back (the agent is told what the person ran); a viewer token watches but cannot take
 * the controls, and its socket closes the moment it is revoked; a frame of the wrong shape
 * is refused on the control plane, never relayed.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { DashboardMessage } from '../../shared/src/live.ts';
import { HostCluster, PROCESS_START_MS } from './support/host-cluster.ts';
import { LiveClient } from './support/live-client.ts';

const cluster = new HostCluster();
let shellId = '';

const liveUrl = (id: string): string =>
  `${cluster.origin.replace('http', 'ws')}/api/sessions/${id}/live`;

beforeAll(async () => {
  await cluster.startControlPlane();
  await cluster.startHost('relay-1');
  const first = await cluster.call('watched', 'echo before-$((40+2))');
  expect(first).toEqual({ status: 200, output: 'before-42' });
  const session = (await cluster.sessions()).find((s) => s.agent === 'watched');
  if (session === undefined) throw new Error('the agent has no shell');
  shellId = session.id;
}, 3 * PROCESS_START_MS);

afterAll(async () => {
  await cluster.close();
}, 60_000);

describe('a shell on a joined host, seen from the control plane', () => {
  it('is on the dashboard stream with its host, and its changes follow', async () => {
    const socket = new WebSocket(`${cluster.origin.replace('http', 'ws')}/api/live`, {
      headers: { authorization: `Bearer ${cluster.adminToken}` },
    });
    const messages: DashboardMessage[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data)) as DashboardMessage));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const waitFor = async (check: () => boolean, what: string): Promise<void> => {
      await cluster.waitFor(
        async () => check(),
        what,
        20_000,
        () => JSON.stringify(messages),
      );
    };
    await waitFor(() => messages.some((m) => m.type === 'sessions'), 'the list');
    const list = messages.find((m) => m.type === 'sessions');
    const listed = list?.type === 'sessions' ? list.sessions.find((s) => s.id === shellId) : null;
    expect(listed).toMatchObject({ agent: 'watched', host: 'relay-1' });
    // A call's start and end reach the dashboard as the host reports them.
    const call = cluster.call('watched', 'sleep 1; echo slept');
    await waitFor(
      () =>
        messages.some(
          (m) => m.type === 'session' && m.session.id === shellId && m.session.command !== null,
        ),
      'the running command',
    );
    expect(await call).toEqual({ status: 200, output: 'slept' });
    socket.close();
  });

  it('is watched live, taken over by an admin, typed into and handed back', async () => {
    const admin = await LiveClient.connect(liveUrl(shellId), { token: cluster.adminToken });
    const hello = await admin.next('hello');
    expect(hello).toMatchObject({ canControl: true, inCharge: true, session: { id: shellId } });
    await admin.next('snapshot');
    expect(await admin.screenText()).toContain('before-42');

    // Live output of the agent's calls.
    expect(await cluster.call('watched', 'echo live-$((6*7))')).toEqual({
      status: 200,
      output: 'live-42',
    });
    await admin.until(() => admin.outputText().includes('live-42'), 'the live output');

    // A viewer token watches, and sees the admin among the viewers; it cannot take control.
    const viewerToken = await cluster.mint({ role: 'viewer', name: 'watcher' });
    const watcher = await LiveClient.connect(liveUrl(shellId), { token: viewerToken });
    expect(await watcher.next('hello')).toMatchObject({ canControl: false });
    const presence = await watcher.next('presence');
    expect(presence.viewers.map((v) => v.name).sort()).toEqual(['admin', 'watcher']);
    const before = watcher.messages.length;
    watcher.send({ type: 'take_control' });
    await watcher.next('error', () => true, before);

    // The admin takes the controls: the agent is refused while they hold them.
    admin.send({ type: 'take_control' });
    await admin.next('control', (m) => m.controller?.id === hello.you.id);
    await watcher.next('control', (m) => m.controller?.name === 'admin');
    const refused = await cluster.call('watched', 'echo agent');
    expect(refused.status).toBe(409);
    expect(refused.error?.code).toBe('HUMAN_CONTROL');

    // What the admin types runs in the host's shell, and everyone sees it.
    admin.send({ type: 'input', data: 'export BY=relay; echo typed-$((2*21))\r' });
    await watcher.until(() => watcher.outputText().includes('typed-42'), 'the typed output');

    // Handed back: the agent's next call is told what the person ran, with its state.
    admin.send({ type: 'release_control' });
    await admin.next('control', (m) => m.controller === null);
    const next = await cluster.call('watched', 'echo "$BY"');
    expect(next).toEqual({
      status: 200,
      output: '[a human used this shell: export BY=relay; echo typed-$((2*21))]\nrelay',
    });

    // The control plane's own history has the story, from the link: calls, who took the
    // controls, and the recording with what the person typed.
    const calls = (await (await cluster.request(`/api/sessions/${shellId}/calls`)).json()) as {
      command: string;
      output: string;
    }[];
    expect(calls.map((c) => [c.command, c.output])).toEqual([
      ['echo before-$((40+2))', 'before-42'],
      ['sleep 1; echo slept', 'slept'],
      ['echo live-$((6*7))', 'live-42'],
      ['echo "$BY"', '[a human used this shell: export BY=relay; echo typed-$((2*21))]\nrelay'],
    ]);
    const events = (await (await cluster.request(`/api/sessions/${shellId}/events`)).json()) as {
      kind: string;
      name: string;
    }[];
    expect(events.map((e) => `${e.kind} ${e.name}`)).toEqual(['take admin', 'release admin']);
    await cluster.waitFor(
      async () => {
        const recording = await cluster.request(`/api/sessions/${shellId}/recording`);
        return recording.status === 200 && (await recording.text()).includes('typed-42');
      },
      'the recording to hold the typed output',
      20_000,
    );

    // A frame of the wrong shape is answered on the control plane, never relayed.
    const count = admin.messages.length;
    admin.send({ type: 'input' });
    expect((await admin.next('error', () => true, count)).code).toBe('BAD_MESSAGE');

    // Revoking the viewer token closes its relayed socket at once.
    const tokens = (await (await cluster.request('/api/tokens')).json()) as {
      id: string;
      name: string;
    }[];
    const id = tokens.find((t) => t.name === 'watcher')?.id;
    const revoke = await cluster.request(`/api/tokens/${id}`, { method: 'DELETE' });
    expect(revoke.status).toBe(204);
    await watcher.until(() => watcher.closed, 'the revoked socket to close');
    expect(watcher.closed?.code).toBe(4403);
    await admin.close();
  });

  it('belongs to its host: another host token cannot take it, or an agent it was not given', async () => {
    const token = await cluster.mint({ role: 'host', name: 'rogue' });
    const socket = new WebSocket(`${cluster.origin.replace('http', 'ws')}/api/hosts/link`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const messages: { type: string; shellId?: string }[] = [];
    socket.on('message', (data, isBinary) => {
      if (!isBinary) messages.push(JSON.parse(String(data)) as { type: string });
    });
    await new Promise((resolve) => socket.on('open', resolve));
    const forged = (id: string, agent: string) => ({
      info: {
        id,
        agent,
        owner: null,
        dialect: 'bash',
        state: 'idle',
        command: null,
        since: null,
        lastExitCode: null,
        pid: 1,
        cols: 80,
        rows: 24,
        controller: null,
        viewers: 0,
        startedAt: new Date().toISOString(),
        endedAt: null,
        ending: null,
      },
      offset: 0,
    });
    // It claims the watched agent's shell (its very id), and a shell of an agent of its own.
    socket.send(
      JSON.stringify({
        type: 'hello',
        versions: [2],
        labels: {},
        maxShells: 10,
        dialects: ['bash'],
        engineVersion: '0.1.0',
        workspaces: ['watched', 'victim'],
        shells: [forged(shellId, 'watched')],
        calls: [],
      }),
    );
    await cluster.waitFor(
      async () => messages.some((m) => m.type === 'welcome'),
      'the welcome',
      20_000,
    );
    socket.send(JSON.stringify({ type: 'shell_opened', shell: forged('rogue-shell', 'victim') }));
    await cluster.waitFor(
      async () => messages.filter((m) => m.type === 'shell_close').length === 2,
      'both forged shells to be told to end',
      20_000,
      () => JSON.stringify(messages),
    );
    expect(messages.filter((m) => m.type === 'shell_close').map((m) => m.shellId)).toEqual([
      shellId,
      'rogue-shell',
    ]);
    // The watched agent's calls still run on its own host. (A host is trusted with the
    // shells placed on it: drained, the rogue gets none, and the victim's go to a real host.)
    const drain = await cluster.request('/api/hosts/rogue/drain', { method: 'POST' });
    expect(drain.status).toBe(200);
    const sessions = await cluster.sessions();
    expect(sessions.find((s) => s.id === shellId)?.host).toBe('relay-1');
    expect(sessions.some((s) => s.id === 'rogue-shell')).toBe(false);
    expect(await cluster.call('watched', 'echo still-mine')).toEqual({
      status: 200,
      output: 'still-mine',
    });
    expect(await cluster.call('victim', 'echo mine')).toEqual({ status: 200, output: 'mine' });
    expect((await cluster.sessions()).find((s) => s.agent === 'victim')?.host).toBe('relay-1');
    expect(messages.some((m) => m.type === 'call_start')).toBe(false);
    socket.close();
  });

  it('answers 404 for a shell no host has, before any upgrade', async () => {
    await expect(
      LiveClient.connect(liveUrl('no-such-shell'), { token: cluster.adminToken }),
    ).rejects.toThrow('upgrade refused: 404');
  });
});
