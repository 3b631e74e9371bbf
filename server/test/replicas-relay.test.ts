/**
 * Replicas that relay to each other (issue 24.2): two `jumpseat serve --local-shells off
 * --database …` replicas on one PostgreSQL database of the test's own, with one admin token,
 * and a real `jumpseat host` linked to replica A only. On replica B the host is listed as held
 * by A; an agent's call made on B (HTTP and MCP) runs there and answers exactly, and B's
 * dashboard lists the shell; the shell's live stream on B is A's, byte for byte at the same
 * offsets; a person on B takes the controls and hands them back; a clipped call's full output
 * is read on B from the host's disk through A; a replica link without the cluster's secret is
 * refused; an answer A forwarded into a replica link that had died unnoticed reaches B on the
 * next link; and the replica link cut and back while a shell floods loses no byte on B and
 * repeats none. B is reached by A through a forwarder the test can cut (B's --replica-url).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { DashboardMessage } from '../../shared/src/live.ts';
import { savedOutputIn } from '../src/tool/contract-text.ts';
import { freePort, type HostCluster, PROCESS_START_MS } from './support/host-cluster.ts';
import { LiveClient, sameOffset } from './support/live-client.ts';
import { HAS_TEST_DATABASE, ReplicaSet } from './support/replica-set.ts';
import { shellOf } from './support/session-info.ts';
import { TcpForwarder } from './support/tcp-forwarder.ts';

const replicas = new ReplicaSet(2);
const [a, b] = [replicas.at(0), replicas.at(1)];
let forwarder: TcpForwarder | undefined;
let replicaA = '';

/** One MCP request (protocol 2025-06-18) to `origin`, in `session` once there is one. */
function postMcp(
  origin: string,
  token: string,
  body: unknown,
  session?: string,
): Promise<Response> {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2025-06-18',
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
    },
    body: JSON.stringify(body),
  });
}

/** initialize and initialized on `origin`: the session id. */
async function openMcp(origin: string, token: string): Promise<string> {
  const opened = await postMcp(origin, token, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    },
  });
  await opened.text();
  const session = opened.headers.get('mcp-session-id');
  if (opened.status !== 200 || session === null)
    throw new Error(`initialize answered ${opened.status}`);
  await (
    await postMcp(origin, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)
  ).text();
  return session;
}

const toolsCall = (command: string) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'bash', arguments: { command } },
});

/** A tools/call's first text, its answer JSON or one SSE event whose data is that JSON. */
async function mcpText(
  origin: string,
  token: string,
  body: unknown,
  session: string,
): Promise<string | undefined> {
  const text = await (await postMcp(origin, token, body, session)).text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
  return (JSON.parse(json) as { result: { content: { text: string }[] } }).result.content[0]?.text;
}

const liveUrl = (cluster: HostCluster, id: string): string =>
  `${cluster.origin.replace('http', 'ws')}/api/sessions/${id}/live`;

/** The output an asciicast recording holds, its "o" events' data joined. */
async function recordedOutput(cluster: HostCluster, id: string): Promise<string> {
  const response = await cluster.request(`/api/sessions/${id}/recording`);
  if (response.status !== 200) return '';
  return (await response.text())
    .split('\n')
    .slice(1)
    .filter((line) => line.startsWith('['))
    .map((line) => JSON.parse(line) as [number, string, string])
    .filter(([, kind]) => kind === 'o')
    .map(([, , data]) => data)
    .join('');
}

/** Where two texts first differ, with what each has there. */
function firstDifference(one: string, other: string): string {
  let at = 0;
  while (at < one.length && one[at] === other[at]) at++;
  return `${at}: ${JSON.stringify(one.slice(at, at + 40))} vs ${JSON.stringify(other.slice(at, at + 40))}`;
}

describe.runIf(HAS_TEST_DATABASE)('replicas that relay to each other', () => {
  beforeAll(async () => {
    const { env } = await replicas.open();
    b.port = await freePort();
    const forwarderPort = await freePort();
    forwarder = replicas.keep(await TcpForwarder.start(forwarderPort, b.port));
    await Promise.all([
      a.startControlPlane([], env),
      b.startControlPlane(['--replica-url', `http://127.0.0.1:${forwarderPort}`], env),
    ]);
    replicaA = await a.replicaId();
    expect(replicaA).toMatch(/^[0-9a-f-]{36}$/);
    await a.startHost('h1');
    await replicas.hostsConnected(['h1'], [b]);
  }, 3 * PROCESS_START_MS);

  afterAll(() => replicas.close(), 90_000);

  it('lists on B the host linked to A, with A as the replica holding its link', async () => {
    const hosts = (await (await b.request('/api/hosts')).json()) as Record<string, unknown>[];
    expect(hosts).toEqual([
      expect.objectContaining({ name: 'h1', state: 'connected', replica: replicaA }),
    ]);
    const onA = (await (await a.request('/api/hosts')).json()) as Record<string, unknown>[];
    expect(onA).toEqual([
      expect.objectContaining({ name: 'h1', state: 'connected', replica: replicaA }),
    ]);
  });

  it("runs an agent's call made on B on the host linked to A, and answers exactly", async () => {
    expect(await b.call('relayed', 'echo relayed-$((6*7)); export SEEN=b')).toEqual({
      status: 200,
      output: 'relayed-42',
    });
    // The same shell, whichever replica the next call goes to.
    expect(await a.call('relayed', 'echo "$SEEN"')).toEqual({ status: 200, output: 'b' });
    expect(await b.call('relayed', 'echo "$SEEN-again"')).toEqual({
      status: 200,
      output: 'b-again',
    });
    const id = await shellOf(a, 'relayed');
    expect(await shellOf(b, 'relayed')).toBe(id);
    const onB = (await b.sessions()).find((s) => s.id === id);
    expect(onB).toMatchObject({ agent: 'relayed', host: 'h1' });
  });

  it('answers an MCP tools/call made on B from the host linked to A', async () => {
    const token = await b.mint({ role: 'agent', agent: 'mcp-relayed' });
    const session = await openMcp(b.origin, token);
    const text = await mcpText(b.origin, token, toolsCall('echo mcp-$((6*7))'), session);
    expect(text).toBe('mcp-42');
    expect((await b.sessions()).find((s) => s.agent === 'mcp-relayed')?.host).toBe('h1');
  });

  it('tells an MCP client whose session another replica opened to initialise again (404, Session not found)', async () => {
    // MCP sessions live in the replica that opened them; a balancer that moves a client to
    // another replica gets it the standard answer, after which the client initialises anew.
    const token = await a.mint({ role: 'agent', agent: 'mcp-moved' });
    const session = await openMcp(a.origin, token);
    const moved = await postMcp(b.origin, token, toolsCall('echo moved'), session);
    expect(moved.status).toBe(404);
    expect(((await moved.json()) as { error: { code: number; message: string } }).error).toEqual({
      code: -32001,
      message: 'Session not found',
    });
    const fresh = await openMcp(b.origin, token);
    expect(await mcpText(b.origin, token, toolsCall('echo moved'), fresh)).toBe('moved');
  });

  it("lists the host's shells on B's dashboard stream, with their host", async () => {
    const id = await shellOf(a, 'relayed');
    const socket = new WebSocket(`${b.origin.replace('http', 'ws')}/api/live`, {
      headers: { authorization: `Bearer ${b.adminToken}` },
    });
    const messages: DashboardMessage[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data)) as DashboardMessage));
    try {
      await b.waitFor(
        async () => messages.some((m) => m.type === 'sessions'),
        "B's dashboard list",
        20_000,
      );
      const list = messages.find((m) => m.type === 'sessions');
      const listed = list?.type === 'sessions' ? list.sessions.find((s) => s.id === id) : null;
      expect(listed).toMatchObject({ agent: 'relayed', host: 'h1' });
    } finally {
      socket.close();
    }
  });

  it('streams the shell on B byte for byte as on A, at the same offsets', async () => {
    const id = await shellOf(a, 'relayed');
    const onA = await LiveClient.connect(liveUrl(a, id), { token: a.adminToken, screen: false });
    const onB = await LiveClient.connect(liveUrl(b, id), { token: b.adminToken, screen: false });
    await onA.next('snapshot');
    await onB.next('snapshot');
    expect(onB.startOffset ?? onB.position).toBe(onA.startOffset ?? onA.position);
    expect(await b.call('relayed', 'seq 1 2000 | tail -n 1')).toEqual({
      status: 200,
      output: '2000',
    });
    expect(await a.call('relayed', 'echo done-$((1+1))')).toEqual({
      status: 200,
      output: 'done-2',
    });
    await onB.until(() => Buffer.concat(onB.output).includes('done-2'), 'the output on B');
    await sameOffset(onA, onB, 'both viewers at the same offset');
    expect(onB.startOffset).toBe(onA.startOffset);
    expect(Buffer.concat(onB.output).equals(Buffer.concat(onA.output))).toBe(true);
    onA.socket.close();
    onB.socket.close();
  });

  it('lets a person on B take the controls of the shell and hand them back', async () => {
    const id = await shellOf(a, 'relayed');
    const person = await LiveClient.connect(liveUrl(b, id), { token: b.adminToken });
    const hello = await person.next('hello');
    expect(hello).toMatchObject({ canControl: true, session: { id } });
    await person.next('snapshot');
    person.send({ type: 'take_control' });
    await person.next('control', (m) => m.controller?.id === hello.you.id);
    // The agent is refused on either replica while the person holds the controls.
    for (const replica of [a, b]) {
      const refused = await replica.call('relayed', 'echo agent');
      expect(refused.status).toBe(409);
      expect(refused.error?.code).toBe('HUMAN_CONTROL');
    }
    person.send({ type: 'input', data: 'export BY=person-on-b; echo typed-$((2*21))\r' });
    await person.until(() => Buffer.concat(person.output).includes('typed-42'), 'typed output');
    const held = person.messages.length;
    person.send({ type: 'release_control' });
    await person.next('control', (m) => m.controller === null, held);
    expect(await a.call('relayed', 'echo "$BY"')).toEqual({
      status: 200,
      output: '[a human used this shell: export BY=person-on-b; echo typed-$((2*21))]\nperson-on-b',
    });
    person.socket.close();
  });

  it("serves on B a clipped call's full output, read from the host through A", async () => {
    const call = await b.call('relayed-file', 'seq 1 400000');
    expect(call.status).toBe(200);
    const path = savedOutputIn(call.output ?? '');
    if (path === null) throw new Error(`not clipped: ${call.output}`);
    // Every process runs on this machine: the host's file is read here to compare with.
    const bytes = readFileSync(path);
    expect(bytes.length).toBeGreaterThan(2 * 1024 * 1024);
    const id = await shellOf(b, 'relayed-file');
    // The call is recorded by A, which holds the host's link, into the database B reads: it
    // is there within A's flush interval.
    let callId = '';
    for (let tries = 0; callId === '' && tries < 100; tries++) {
      const calls = (await (await b.request(`/api/sessions/${id}/calls`)).json()) as {
        id: string;
        command: string;
      }[];
      callId = calls.find((c) => c.command === 'seq 1 400000')?.id ?? '';
      if (callId === '') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const response = await b.request(
      `/api/sessions/${id}/calls/${encodeURIComponent(callId)}/output`,
    );
    expect(response.status, response.status === 200 ? '' : await response.clone().text()).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(bytes.length));
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  }, 90_000);

  it('refuses a replica link without the cluster secret, whatever token it holds', async () => {
    const url = `${a.origin.replace('http', 'ws')}/api/replicas/link`;
    const statusOf = (headers: Record<string, string>): Promise<number> =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(url, { headers });
        socket.once('unexpected-response', (_request, response) => {
          resolve(response.statusCode ?? 0);
          socket.terminate();
        });
        socket.once('open', () => {
          socket.close();
          resolve(101);
        });
        socket.once('error', reject);
      });
    expect(await statusOf({})).toBe(403);
    expect(await statusOf({ authorization: `Bearer ${a.adminToken}` })).toBe(403);
    expect(await statusOf({ authorization: 'Bearer not-the-secret' })).toBe(403);
    const plain = await a.request('/api/replicas/link');
    expect(plain.status).toBe(403);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
  });

  it('answers a call made on B exactly when the replica link dies unnoticed as the answer goes up', async () => {
    expect(await b.call('stranded', 'export KEPT=yes')).toEqual({ status: 200, output: '' });
    const call = b.call('stranded', 'sleep 2; echo "relayed-$((6*7))-$KEPT"');
    await b.waitFor(
      async () => (await b.sessions()).some((s) => s.agent === 'stranded' && s.state === 'running'),
      'the call to run',
      10_000,
    );
    const linksBefore = forwarder?.accepted ?? 0;
    // No FIN, no RST: A forwards the answer into a link that carries nothing, and each side
    // learns of it only from silence; A dials B again through the forwarder.
    forwarder?.strand();
    expect(await call).toEqual({ status: 200, output: 'relayed-42-yes' });
    expect(forwarder?.accepted ?? 0).toBeGreaterThan(linksBefore);
    expect(await b.call('stranded', 'echo "after-$KEPT"')).toEqual({
      status: 200,
      output: 'after-yes',
    });
  }, 120_000);

  it('loses no byte on B and repeats none when the replica link is cut and back', async () => {
    expect(await a.call('flood', 'echo start')).toEqual({ status: 200, output: 'start' });
    const id = await shellOf(a, 'flood');
    await b.waitFor(async () => (await b.sessions()).some((s) => s.id === id), 'B', 10_000);
    const call = a.call(
      'flood',
      'for i in $(seq 1 3000); do echo "line-$i"; if ((i % 20 == 0)); then sleep 0.05; fi; done',
    );
    const linksBefore = forwarder?.accepted ?? 0;
    for (let cut = 0; cut < 2; cut++) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      forwarder?.cut(1000);
    }
    // The result is clipped for the model; the recordings hold every line.
    expect((await call).status).toBe(200);
    // The link came back (redialled) and B's stream caught up with A's.
    await b.waitFor(
      async () => (await b.hostState('h1')) === 'connected',
      'h1 back on B',
      20_000,
      () => `${a.controlPlane?.stderr()} ${b.controlPlane?.stderr()}`,
    );
    expect(forwarder?.accepted ?? 0).toBeGreaterThan(linksBefore);
    // The recordings are written as the streams arrive: polled until B's has caught up.
    let onA = '';
    let onB = '';
    await b.waitFor(
      async () => {
        [onA, onB] = await Promise.all([recordedOutput(a, id), recordedOutput(b, id)]);
        return onA.includes('line-3000') && onB === onA;
      },
      "B's recording to equal A's",
      20_000,
      () =>
        `(${onA.length} bytes on A, ${onB.length} on B; first difference at ${firstDifference(onA, onB)})`,
    );
    expect(onB).toBe(onA);
  }, 120_000);
});
