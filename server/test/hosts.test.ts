/**
 * Shell hosts as real separate processes on loopback: a pure control plane
 * (`--local-shells off`) and `jumpseat host --join` processes. Exact results through a joined
 * host, host tokens refused everywhere else, an incompatible host refused, placement by
 * labels and load, drain, NO_HOST, a frozen host's link dropped and resumed with its call's
 * exact result, an answer written into a link that had died unnoticed delivered on the next
 * one, and a host killed with SIGKILL: its call answers that the shell was lost.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort, HostCluster, PROCESS_START_MS, stopProcess } from './support/host-cluster.ts';
import { TcpForwarder } from './support/tcp-forwarder.ts';

const RESET =
  'The persistent bash shell was reset; the next bash call starts from the workspace with a fresh current directory and environment.';
/** The control plane's grace for a host whose link dropped (short, for the loss tests). */
const GRACE_MS = 12_000;
/** A link silent this long is dropped (LINK_SILENCE_MS), noticed at the next ping. */
const DROP_NOTICED_MS = 30_000;

const cluster = new HostCluster();
let gpuToken = '';

beforeAll(async () => {
  await cluster.startControlPlane(['--host-grace-ms', String(GRACE_MS)]);
  await cluster.startHost('h1', ['--label', 'gpu=1']);
  await cluster.startHost('h2');
  gpuToken = await cluster.mint({ role: 'agent', agent: 'gpu-agent', labels: { gpu: '1' } });
}, 3 * PROCESS_START_MS);

afterAll(async () => {
  await cluster.close();
}, 60_000);

describe('a host token', () => {
  it('joins and does nothing else: 403 on every other route', async () => {
    const token = await cluster.mint({ role: 'host', name: 'only-joins' });
    for (const [path, method] of [
      ['/api/sessions', 'GET'],
      ['/api/hosts', 'GET'],
      ['/api/tools', 'GET'],
      ['/api/me', 'GET'],
      ['/api/no-such-route', 'GET'],
    ] as const) {
      const response = await cluster.request(path, { method, token });
      expect(response.status, path).toBe(403);
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
        'a host token can only join as a shell host',
      );
    }
    const call = await cluster.call('a1', 'echo hi', token);
    expect(call).toEqual({
      status: 403,
      error: { code: 'FORBIDDEN', message: 'a host token can only join as a shell host' },
    });
  });

  it('a person’s own shell on a pure control plane is refused with the reason', async () => {
    const response = await cluster.request('/api/sessions', {
      method: 'POST',
      body: JSON.stringify({ dialect: 'bash' }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: {
        code: 'SHELL_CAPACITY',
        message:
          'this server is a control plane that runs no shells itself (--local-shells off): agents’ shells run on joined hosts, and a person’s own shell on a joined host is not supported yet',
      },
    });
  });

  it('is the only token the link takes', async () => {
    const response = await cluster.request('/api/hosts/link');
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'only a host token may join as a shell host',
    );
  });

  it('needs a name', async () => {
    const nameless = await cluster.request('/api/tokens', {
      method: 'POST',
      body: JSON.stringify({ role: 'host' }),
    });
    expect(nameless.status).toBe(400);
    expect(((await nameless.json()) as { error: { message: string } }).error.message).toBe(
      'role "host" requires "name" (the host\'s name)',
    );
  });

  it('of an incompatible host is refused with a message naming both versions', async () => {
    const token = await cluster.mint({ role: 'host', name: 'future' });
    const socket = new WebSocket(`${cluster.origin.replace('http', 'ws')}/api/hosts/link`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const messages: string[] = [];
    socket.on('message', (data) => messages.push(String(data)));
    await new Promise((resolve) => socket.on('open', resolve));
    socket.send(
      JSON.stringify({
        type: 'hello',
        versions: [7],
        labels: {},
        maxShells: 1,
        dialects: ['bash'],
        engineVersion: '9.0.0',
        workspaces: [],
        shells: [],
        calls: [],
      }),
    );
    const code = await new Promise<number>((resolve) => socket.on('close', resolve));
    expect(code).toBe(4426);
    expect(messages.map((text) => JSON.parse(text))).toEqual([
      {
        type: 'refused',
        message:
          'incompatible link protocol: the host speaks version 7, this control plane speaks version 1-3; upgrade the older side',
      },
    ]);
  });
});

describe('calls through joined hosts', () => {
  it('return the exact result text, and the shell keeps its state', async () => {
    expect(await cluster.call('a1', 'export X=5; cd /; printf "a\\tb\\n"')).toEqual({
      status: 200,
      output: 'a\tb',
    });
    expect(await cluster.call('a1', 'echo $X; pwd; false')).toEqual({
      status: 200,
      output: '5\n/\n[exit code: 1]',
    });
    const [session] = (await cluster.sessions()).filter((s) => s.agent === 'a1');
    expect(session?.host).toMatch(/^h[12]$/);
    expect(session?.state).toBe('idle');
  });

  it('go to a host with every label the agent token carries', async () => {
    expect(await cluster.call('gpu-agent', 'echo on-gpu', gpuToken)).toEqual({
      status: 200,
      output: 'on-gpu',
    });
    const [session] = (await cluster.sessions()).filter((s) => s.agent === 'gpu-agent');
    expect(session?.host).toBe('h1');
  });

  it('answer 503 NO_HOST naming the labels no connected host has', async () => {
    const token = await cluster.mint({ role: 'agent', agent: 'tpu-agent', labels: { tpu: 'v5' } });
    expect(await cluster.call('tpu-agent', 'true', token)).toEqual({
      status: 503,
      error: { code: 'NO_HOST', message: 'no connected host has the labels tpu=v5' },
    });
  });

  it('start a new shell on the least loaded host', async () => {
    const before = await cluster.sessions();
    const load = (name: string) =>
      before.filter((s) => s.host === name && s.state !== 'exited').length;
    const expected = load('h1') <= load('h2') ? 'h1' : 'h2';
    expect(await cluster.call('spread', 'echo placed')).toEqual({ status: 200, output: 'placed' });
    const [session] = (await cluster.sessions()).filter((s) => s.agent === 'spread');
    expect(session?.host).toBe(expected);
  });
});

describe('the hosts', () => {
  it('are listed by `jumpseat hosts`, minted by `jumpseat token create --role host`, counted in /metrics', async () => {
    const { runCli } = await import('../src/cli/main.ts');
    const run = async (args: string[]) => {
      let out = '';
      let err = '';
      const status = await runCli(args, {
        out: (text) => {
          out += text;
        },
        err: (text) => {
          err += text;
        },
        env: { JUMPSEAT_URL: cluster.origin, JUMPSEAT_TOKEN: cluster.adminToken },
        interrupt: new AbortController().signal,
      });
      return { status, out, err };
    };
    const listed = await run(['hosts']);
    expect(listed.status).toBe(0);
    expect(listed.out).toMatch(/^NAME +STATE +SHELLS +LABELS +DIALECTS +VERSION +LAST SEEN\n/);
    expect(listed.out).toMatch(/\nh1 +connected +\d+\/\d+ +gpu=1 +bash/);
    expect(listed.out).toMatch(/\nh2 +connected +\d+\/\d+ +- +bash/);
    const minted = await run(['token', 'create', '--role', 'host', '--name', 'build-9']);
    expect(minted).toMatchObject({ status: 0, err: '' });
    expect(minted.out).toMatch(/^js_\S+\n$/);
    const labelled = await run([
      'token',
      'create',
      '--role',
      'agent',
      '--agent',
      'x',
      '--label',
      'gpu',
    ]);
    expect(labelled.status).toBe(2);
    expect(labelled.err).toBe(
      'jumpseat: a label is key=value, not "gpu" (see jumpseat token --help)\n',
    );
    const metrics = await (await cluster.request('/metrics')).text();
    expect(metrics).toContain('jumpseat_hosts{state="connected"} 2');
    expect(metrics).toMatch(/jumpseat_host_shells\{host="h1"\} \d+/);
  });
});

describe('a host whose link drops', () => {
  it('comes back within the grace period with its shell, and the call in flight answers exactly', async () => {
    const gpu = cluster.hosts.find((host) => host.name === 'h1');
    expect(await cluster.call('gpu-agent', 'export KEPT=yes', gpuToken)).toEqual({
      status: 200,
      output: '',
    });
    const call = cluster.call('gpu-agent', 'sleep 1; seq 1 3000 | tail -n 2; echo $KEPT', gpuToken);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // A frozen host says nothing: the control plane drops its link for silence.
    gpu?.process.kill('SIGSTOP');
    try {
      await cluster.waitFor(
        async () => (await cluster.hostState('h1')) === 'unreachable',
        'h1 to be unreachable',
        DROP_NOTICED_MS,
      );
    } finally {
      gpu?.process.kill('SIGCONT');
    }
    expect(await call).toEqual({ status: 200, output: '2999\n3000\nyes' });
    await cluster.waitFor(
      async () => (await cluster.hostState('h1')) === 'connected',
      'h1 back',
      30_000,
    );
    expect(await cluster.call('gpu-agent', 'echo $KEPT', gpuToken)).toEqual({
      status: 200,
      output: 'yes',
    });
  }, 120_000);
});

describe('answers on the link', () => {
  /** A host of protocol `version` on a raw socket that answers every call with `output`. */
  async function rawHost(name: string, version: number) {
    const token = await cluster.mint({ role: 'host', name });
    const socket = new WebSocket(`${cluster.origin.replace('http', 'ws')}/api/hosts/link`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const messages: { type: string; callId?: string; version?: number }[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; callId?: string };
      messages.push(message);
      if (message.type !== 'call_start') return;
      const answer = { type: 'call_result', callId: message.callId, output: `${name}-answer` };
      // Twice, as a host does whose first link died after it wrote the answer.
      socket.send(JSON.stringify(answer));
      socket.send(JSON.stringify(answer));
    });
    await new Promise((resolve) => socket.on('open', resolve));
    socket.send(
      JSON.stringify({
        type: 'hello',
        versions: [version],
        labels: { raw: name },
        maxShells: 1,
        dialects: ['bash'],
        engineVersion: '0.1.0',
        workspaces: [],
        shells: [],
        calls: [],
      }),
    );
    await cluster.waitFor(
      async () => messages.some((m) => m.type === 'welcome'),
      `${name}'s welcome`,
      20_000,
    );
    return { socket, messages };
  }

  /** Closes a raw host's link and, once the control plane saw it go, forgets the host. */
  async function forgetRawHost(socket: WebSocket, name: string): Promise<void> {
    socket.close();
    await cluster.waitFor(
      async () => (await cluster.hostState(name)) !== 'connected',
      `${name}'s link to close`,
      10_000,
    );
    await cluster.request(`/api/hosts/${name}`, { method: 'DELETE' });
  }

  it('are acknowledged to a host of protocol 3, once per answer read, and to no older host', async () => {
    for (const [name, version] of [
      ['raw-v3', 3],
      ['raw-v2', 2],
    ] as const) {
      const { socket, messages } = await rawHost(name, version);
      try {
        expect(messages.find((m) => m.type === 'welcome')?.version).toBe(version);
        const token = await cluster.mint({
          role: 'agent',
          agent: `${name}-agent`,
          labels: { raw: name },
        });
        expect(await cluster.call(`${name}-agent`, 'echo hi', token)).toEqual({
          status: 200,
          output: `${name}-answer`,
        });
        const started = messages.find((m) => m.type === 'call_start');
        expect(started?.callId).toMatch(/^[0-9a-f-]{36}$/);
        const acks = () => messages.filter((m) => m.type === 'call_ack');
        if (version === 3) {
          await cluster.waitFor(async () => acks().length === 2, 'both acknowledgements', 10_000);
          expect(acks()).toEqual([
            { type: 'call_ack', callId: started?.callId },
            { type: 'call_ack', callId: started?.callId },
          ]);
        } else {
          // What a protocol 2 host would log as a message it does not know: never sent.
          await new Promise((resolve) => setTimeout(resolve, 300));
          expect(acks()).toEqual([]);
        }
      } finally {
        await forgetRawHost(socket, name);
      }
    }
  });

  it("acknowledge a host's stories every 100 even when no call answers (people typing only)", async () => {
    const name = 'raw-stories';
    const { socket, messages } = await rawHost(name, 3);
    try {
      const story = (seq: number) =>
        JSON.stringify({
          type: 'shell_story',
          shellId: 'no-such-shell',
          seq,
          story: { kind: 'input', keys: 'ls\r' },
        });
      for (let seq = 1; seq <= 150; seq++) socket.send(story(seq));
      const storyAcks = () => messages.filter((m) => m.type === 'call_ack');
      await cluster.waitFor(async () => storyAcks().length > 0, 'the stories acknowledged', 10_000);
      // Fifty more read after it: not yet the next hundred.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(storyAcks()).toEqual([{ type: 'call_ack', callId: '', stories: 100 }]);
    } finally {
      await forgetRawHost(socket, name);
    }
  });
});

describe('a host whose link dies unnoticed', () => {
  it('sends the answer it wrote into the dead link again on the next one: the call answers exactly', async () => {
    const path = await TcpForwarder.start(await freePort(), cluster.port);
    const host = await cluster.startHost('h3', ['--label', 'path=forwarded'], undefined, [], {
      join: `http://127.0.0.1:${path.port}`,
    });
    try {
      const token = await cluster.mint({
        role: 'agent',
        agent: 'forwarded-agent',
        labels: { path: 'forwarded' },
      });
      expect(await cluster.call('forwarded-agent', 'export KEPT=yes', token)).toEqual({
        status: 200,
        output: '',
      });
      const call = cluster.call(
        'forwarded-agent',
        'sleep 2; echo "answered-$((6*7))-$KEPT"',
        token,
      );
      await cluster.waitFor(
        async () =>
          (await cluster.sessions()).some(
            (session) => session.agent === 'forwarded-agent' && session.state === 'running',
          ),
        'the call to run on h3',
        10_000,
      );
      // The path dies without a FIN: the host writes its answer into a socket that takes it
      // and carries it nowhere. Each side learns of it only from silence; the host's next
      // link goes through the forwarder again.
      path.strand();
      expect(await call).toEqual({ status: 200, output: 'answered-42-yes' });
      expect(await cluster.hostState('h3')).toBe('connected');
      // The call's record went up the dead link too: it is in the control plane's history.
      const shell = (await cluster.sessions()).find((s) => s.agent === 'forwarded-agent');
      const calls = (await (await cluster.request(`/api/sessions/${shell?.id}/calls`)).json()) as {
        command: string;
        output: string;
      }[];
      expect(calls.map((c) => [c.command, c.output])).toEqual([
        ['export KEPT=yes', ''],
        ['sleep 2; echo "answered-$((6*7))-$KEPT"', 'answered-42-yes'],
      ]);
      expect(await cluster.call('forwarded-agent', 'echo "after-$KEPT"', token)).toEqual({
        status: 200,
        output: 'after-yes',
      });
    } finally {
      await stopProcess(host.process);
      await cluster.request('/api/hosts/h3', { method: 'DELETE' });
      await path.close();
    }
  }, 120_000);
});

describe('draining and losing hosts', () => {
  it('a drained host takes no new shell; with every host drained, NO_HOST says so', async () => {
    const drained = await cluster.request('/api/hosts/h2/drain', { method: 'POST' });
    expect(drained.status).toBe(200);
    expect(((await drained.json()) as { state: string }).state).toBe('draining');
    expect(await cluster.call('after-drain', 'echo ok')).toEqual({ status: 200, output: 'ok' });
    const [session] = (await cluster.sessions()).filter((s) => s.agent === 'after-drain');
    expect(session?.host).toBe('h1');
    await cluster.request('/api/hosts/h1/drain', { method: 'POST' });
    expect(await cluster.call('nowhere', 'true')).toEqual({
      status: 503,
      error: { code: 'NO_HOST', message: 'every host is draining' },
    });
  });

  it('kill -9 of a host: its call in flight answers that the shell was lost, and history says host_lost', async () => {
    const h1 = cluster.hosts.find((host) => host.name === 'h1');
    const call = cluster.call('after-drain', 'echo started; sleep 600');
    await cluster.waitFor(
      async () =>
        (await cluster.sessions()).some((s) => s.agent === 'after-drain' && s.state === 'running'),
      'the call to run',
      30_000,
    );
    h1?.process.kill('SIGKILL');
    expect(await call).toEqual({
      status: 200,
      output: `[shell lost: host h1 stopped answering]\n${RESET}`,
    });
    const [session] = (await cluster.sessions()).filter((s) => s.agent === 'after-drain');
    expect(session?.state).toBe('exited');
    expect(session?.ending).toEqual({ kind: 'host_lost', exitCode: null, signal: null });
    expect(await cluster.hostState('h1')).toBe('unreachable');
    // A host that is gone can be forgotten; a connected one cannot.
    expect((await cluster.request('/api/hosts/h2', { method: 'DELETE' })).status).toBe(409);
    expect((await cluster.request('/api/hosts/h1', { method: 'DELETE' })).status).toBe(204);
    expect(await cluster.hostState('h1')).toBeUndefined();
  }, 60_000);
});
