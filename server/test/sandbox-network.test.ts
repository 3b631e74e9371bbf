/**
 * `--network on` (the default), attacked as an agent would through the tool: its shell
 * reaches a host outside over IPv4 and IPv6 (a test host in a network namespace this test
 * makes, joined by a veth pair on addresses the test picks), and none of the host's loopback
 * (this server's own port, a listener on ::1), another sandbox's listener on its loopback, or another sandbox's abstract unix
 * socket. The namespace and the veth pair are removed at the end, even on failure.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKeyOf } from '../src/launch/choose-launcher.ts';
import { NETWORK_TAG_VARIABLE } from '../src/launch/sandbox-network.ts';
import { taggedProcesses } from '../src/launch/tagged-processes.ts';
import { cleanEnv, type Serving, serve } from './support/cli-process.ts';
import { startServer, type TestServer } from './support/http-server.ts';
import { SANDBOX_WORKS } from './support/sandbox-check.ts';
import { netnsUnavailable, TestNetns } from './support/test-netns.ts';

/** The test host's /30 is 10.231.<random>.0: .1 on the host's side, .2 in the test host. */
const SUBNET_PREFIX = '10.231';
const TEST_HOST_PORT = 8080;
/** Agent B's listener on its own loopback. */
const B_PORT = 8765;
const ABSTRACT_NAME = 'jumpseat-network-test';
/** The test host's HTTP server is listening by then, or it failed. */
const LISTEN_DEADLINE_MS = 20_000;
const LISTEN_POLL_MS = 100;

const CI = process.env.CI === 'true' || process.env.CI === '1';
/** The unprivileged server of the second case (every Debian system has it). */
const NOBODY = { uid: 65534, gid: 65534 };
/** A server from source run as nobody fills a tsx cache of its own first. */
const NOBODY_START_MS = 60_000;

function whyNot(): string | null {
  const netns = netnsUnavailable();
  if (netns !== null) return netns;
  try {
    execFileSync('slirp4netns', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'slirp4netns is needed';
  }
  return null;
}

const reason = SANDBOX_WORKS ? whyNot() : null;
if (reason !== null) {
  // Not root is no missing dependency: CI runs the whole suite as an unprivileged user too.
  if (CI && process.getuid?.() === 0)
    throw new Error(`sandbox network tests: ${reason}; CI=true, so this fails the run`);
  process.stdout.write(`sandbox network tests: NOT RUN — ${reason}\n`);
}

const machine = new TestNetns('net', SUBNET_PREFIX, { ipv6: true });
const testHost = machine.inner;
const testHost6 = machine.inner6 as string;

let server: TestServer;
let scratch: string;
let listener: ChildProcess | null = null;

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function call(agent: string, command: string): Promise<string> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command });
  const body = (await response.json()) as { output?: string; error?: unknown };
  if (response.status !== 200) throw new Error(`${response.status}: ${JSON.stringify(body)}`);
  return body.output ?? '';
}

/** A python3 line in the agent's shell: `reached` or `refused: <error>`. */
function tryConnect(target: string): string {
  return `python3 -c "
import socket
try:
    s = ${target}
    print('reached')
except OSError as e:
    print('refused:', type(e).__name__)"`;
}

/** The processes carrying the network tag of run `key`, with their command names. */
async function taggedOf(key: string): Promise<{ pid: number; comm: string }[]> {
  const pids = await taggedProcesses(NETWORK_TAG_VARIABLE, (value) => value === key);
  return pids.map((pid) => {
    try {
      return { pid, comm: readFileSync(`/proc/${pid}/comm`, 'utf8').trim() };
    } catch {
      return { pid, comm: '' };
    }
  });
}

/**
 * Run `key`'s spare networks not taken yet: each namespace (as `readlink` names it) and the
 * pid of the `sleep` that holds it, which is alone in there until a sandbox enters.
 */
async function spares(key: string): Promise<Map<string, number>> {
  const holders = new Map<string, number>();
  for (const { pid, comm } of await taggedOf(key)) {
    const namespace = comm === 'sleep' ? namespaceOf(pid) : null;
    if (namespace !== null) holders.set(namespace, pid);
  }
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const namespace = namespaceOf(Number(name));
    if (namespace !== null && holders.has(namespace) && holders.get(namespace) !== Number(name)) {
      holders.delete(namespace);
    }
  }
  return holders;
}

function namespaceOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return null;
  }
}

async function egressOf(key: string): Promise<number[]> {
  return (await taggedOf(key)).filter(({ comm }) => /^slirp/.test(comm)).map(({ pid }) => pid);
}

function removeTestHost(): void {
  listener?.kill('SIGKILL');
  machine.remove();
}

describe.runIf(SANDBOX_WORKS && reason === null)('sandbox network: egress only', () => {
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'jumpseat-net-test-'));
    writeFileSync(join(scratch, 'hello.txt'), 'hello from the test host\n');
    try {
      machine.create();
      const [command = 'ip', ...prefix] = machine.exec;
      listener = spawn(
        command,
        [
          ...prefix,
          // `::` listens on both families (http.server's dual-stack server).
          ...['python3', '-m', 'http.server', String(TEST_HOST_PORT)],
          ...['--bind', '::', '--directory', scratch],
        ],
        { stdio: 'ignore' },
      );
      const deadline = Date.now() + LISTEN_DEADLINE_MS;
      while (
        !(await reachable(testHost, TEST_HOST_PORT)) ||
        !(await reachable(testHost6, TEST_HOST_PORT))
      ) {
        if (Date.now() > deadline) throw new Error('the test host never listened');
        await new Promise((resolve) => setTimeout(resolve, LISTEN_POLL_MS));
      }
      server = await startServer();
    } catch (error) {
      removeTestHost();
      throw error;
    }
  });

  afterAll(async () => {
    const key = server === undefined ? null : runKeyOf(server.config.dataDir);
    await server?.close();
    removeTestHost();
    rmSync(scratch, { recursive: true, force: true });
    // The stop ends the shells' slirp4netns, and the spares with their holders.
    const deadline = Date.now() + 10_000;
    while (key !== null && (await taggedOf(key)).length > 0) {
      if (Date.now() > deadline) throw new Error('slirp4netns or spare holders outlived the stop');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it('is on by default: the shell has a network of its own with a route out', async () => {
    expect(server.config.network).toBe('on');
    const devices = await call('alice', "ls /sys/class/net | grep -v '^lo$' | wc -l");
    expect(Number(devices)).toBeGreaterThanOrEqual(1);
  });

  it("leaves the host's mounts alone: a named network namespace stays", async () => {
    // slirp4netns's own sandbox detached its copy of every shared mount, which reached the
    // host's: `ip netns`'s mount of a namespace went, and the namespace with it where no
    // process held it (a shell host's machine, before its host process started).
    await call('alice', 'true');
    await call('erin', 'true');
    const mounted = readFileSync('/proc/self/mountinfo', 'utf8');
    expect(mounted).toContain(` /run/netns/${machine.namespace} `);
    // Nor does a sandbox hold a copy of that handle: one the host removed while bwrap
    // remounted its copies refused the shell ("remount /newroot/run/netns/…: Invalid argument").
    expect(await call('alice', 'cat /proc/self/mountinfo')).not.toContain(
      `/run/netns/${machine.namespace}`,
    );
  });

  it('reaches a host outside', async () => {
    expect(
      await call(
        'alice',
        `python3 -c "import urllib.request; print(urllib.request.urlopen('http://${testHost}:${TEST_HOST_PORT}/hello.txt', timeout=10).read().decode(), end='')"`,
      ),
    ).toBe('hello from the test host');
  });

  it("reaches a host outside over IPv6 from a new shell's first call, spares taken or not", async () => {
    const key = runKeyOf(server.config.dataDir);
    await call('alice', 'true');
    await expect.poll(async () => (await spares(key)).size, { timeout: 20_000 }).toBe(2);
    // Three at once: two take the spares, the third makes its namespace as it starts.
    const fetch6 = `python3 -c "import urllib.request; print(urllib.request.urlopen('http://[${testHost6}]:${TEST_HOST_PORT}/hello.txt', timeout=10).read().decode(), end='')"`;
    const firsts = await Promise.all(['ivan', 'judy', 'kim'].map((agent) => call(agent, fetch6)));
    expect(firsts).toEqual(Array(3).fill('hello from the test host'));
    // Its address was usable at once: no duplicate address check, and the route from the router.
    expect(await call('kim', 'ip -6 addr show dev tap0 scope global')).not.toMatch(/tentative/);
    expect(await call('kim', 'ip -6 route show default')).toMatch(/^default via fe80::2 dev tap0/);
  });

  it("does not reach the host's IPv6 loopback, by ::1 or by the router's addresses", async () => {
    const { createServer } = await import('node:net');
    const onHost = createServer((socket) =>
      socket.on('error', () => undefined).end('host loopback\n'),
    );
    await new Promise<void>((resolve) => onHost.listen(0, '::1', resolve));
    try {
      const port = (onHost.address() as { port: number }).port;
      expect(await reachable('::1', port)).toBe(true);
      expect(await call('alice', tryConnect(`socket.create_connection(('::1', ${port}), 3)`))).toBe(
        'refused: ConnectionRefusedError',
      );
      // slirp's router, which would otherwise lead to the host's loopback.
      for (const router of ['fd00::2', 'fe80::2%tap0']) {
        expect(
          await call('alice', tryConnect(`socket.create_connection(('${router}', ${port}), 3)`)),
        ).toMatch(/^refused: /);
      }
    } finally {
      onHost.close();
    }
  });

  it("does not reach the host's loopback: this server's own port", async () => {
    const port = new URL(server.origin).port;
    expect(await reachable('127.0.0.1', Number(port))).toBe(true);
    expect(
      await call('alice', tryConnect(`socket.create_connection(('127.0.0.1', ${port}), 3)`)),
    ).toBe('refused: ConnectionRefusedError');
    expect(
      await call('alice', tryConnect(`socket.create_connection(('localhost', ${port}), 3)`)),
    ).toMatch(/^refused: /);
    // Nor through the gateway, which slirp4netns would otherwise lead to the host's loopback.
    const gateway = await call('alice', "ip -4 route show default | awk '{print $3}'");
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.2$/);
    expect(
      await call('alice', tryConnect(`socket.create_connection(('${gateway}', ${port}), 3)`)),
    ).toMatch(/^refused: /);
  });

  it("does not reach another sandbox's listener or abstract socket", async () => {
    await call(
      'bob',
      `python3 -m http.server ${B_PORT} --bind 127.0.0.1 >/dev/null 2>&1 &
python3 -c "
import socket, time
s = socket.socket(socket.AF_UNIX)
s.bind('\\0${ABSTRACT_NAME}')
s.listen()
time.sleep(120)" &
sleep 0.5`,
    );
    const listening = tryConnect(`socket.create_connection(('127.0.0.1', ${B_PORT}), 3)`);
    const abstract = tryConnect(`socket.socket(socket.AF_UNIX); s.connect('\\0${ABSTRACT_NAME}')`);
    // Both are there for bob himself...
    await expect.poll(() => call('bob', listening), { timeout: 15_000 }).toBe('reached');
    expect(await call('bob', abstract)).toBe('reached');
    // ...and out of alice's reach.
    expect(await call('alice', listening)).toBe('refused: ConnectionRefusedError');
    expect(await call('alice', abstract)).toBe('refused: ConnectionRefusedError');
    await call('bob', 'kill $(jobs -p); wait 2>/dev/null; true');
  });
  it('gives a new shell a spare network made before it: egress at once, gone with the shell', async () => {
    const key = runKeyOf(server.config.dataDir);
    await call('alice', 'true');
    // Two spares are kept ready once the first shell has asked.
    await expect.poll(async () => (await spares(key)).size, { timeout: 20_000 }).toBe(2);
    const ready = await spares(key);
    const egressBefore = (await egressOf(key)).length;
    const first = await call(
      'dave',
      `readlink /proc/self/ns/net; ${tryConnect(`socket.create_connection(('${testHost}', ${TEST_HOST_PORT}), 10)`)}`,
    );
    const [namespace, reached] = first.split('\n');
    expect(reached).toBe('reached');
    // dave's namespace is one of the spares', entered, not made at his start.
    const holder = ready.get(namespace ?? '');
    expect(holder).toBeDefined();
    // Another spare is made in its place.
    await expect.poll(async () => (await spares(key)).size, { timeout: 20_000 }).toBe(2);
    const sessions = (await (
      await server.request('/api/sessions', { token: server.adminToken })
    ).json()) as {
      id: string;
      agent?: string;
    }[];
    const dave = sessions.find((session) => session.agent === 'dave');
    expect(dave).toBeDefined();
    const ended = await server.request(`/api/sessions/${dave?.id}`, {
      method: 'DELETE',
      token: server.adminToken,
    });
    expect(ended.status).toBeLessThan(300);
    // The shell's end takes its namespace's holder and slirp4netns along.
    await expect.poll(() => existsSync(`/proc/${holder}`), { timeout: 10_000 }).toBe(false);
    await expect
      .poll(async () => (await egressOf(key)).length, { timeout: 10_000 })
      .toBe(egressBefore);
  });

  it('leaves no slirp4netns behind when the server is killed with SIGKILL', {
    timeout: 90_000,
  }, async () => {
    // Nothing of the server runs to end them: each ends when its exit socket closes, and each
    // spare's holder by its parent-death signal.
    const root = mkdtempSync(join(tmpdir(), 'jumpseat-net-killed-'));
    const dataDir = join(root, 'data');
    const token = 'js_network-test-killed-admin-token-0123456789';
    let serving: Serving | undefined;
    try {
      mkdirSync(join(root, 'workspace'));
      serving = await serve(
        // No quota: its mounts are not what this is about.
        ['--data-dir', dataDir, '--workspace', join(root, 'workspace'), '--workspace-quota', 'off'],
        cleanEnv({ JUMPSEAT_TOKEN: token }),
        { fromSource: true, startDeadlineMs: 60_000 },
      );
      const key = runKeyOf(dataDir);
      for (const agent of ['erin', 'frank', 'grace']) {
        const response = await fetch(`${serving.origin}/api/agents/${agent}/bash`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ command: 'true' }),
        });
        expect(response.status).toBe(200);
      }
      // Its shells' slirp4netns and its spares' run now.
      expect((await egressOf(key)).length).toBeGreaterThanOrEqual(3);
      serving.process.kill('SIGKILL');
      await serving.exited;
      await expect.poll(async () => (await taggedOf(key)).length, { timeout: 20_000 }).toBe(0);
    } finally {
      if (serving?.process.exitCode === null && serving.process.signalCode === null) {
        serving.process.kill('SIGKILL');
      }
      rmSync(root, { recursive: true, force: true });
    }
  });

  it.runIf(process.getuid?.() === 0)(
    "gives an unprivileged server's shells the same: egress, and not its own port",
    { timeout: NOBODY_START_MS + 60_000 },
    async () => {
      // Made by bwrap, the namespace was one slirp4netns could not enter without root: the shell
      // of a server run by an ordinary user had loopback only, under a banner saying "on".
      const root = mkdtempSync(join(tmpdir(), 'jumpseat-net-nobody-'));
      let serving: Serving | undefined;
      try {
        chmodSync(root, 0o755);
        for (const dir of ['data', 'workspace', 'home']) {
          mkdirSync(join(root, dir), { mode: 0o700 });
          chownSync(join(root, dir), NOBODY.uid, NOBODY.gid);
        }
        const token = 'js_network-test-nobody-admin-token-0123456789';
        serving = await serve(
          ['--data-dir', join(root, 'data'), '--workspace', join(root, 'workspace')],
          cleanEnv({ JUMPSEAT_TOKEN: token, HOME: join(root, 'home') }),
          { fromSource: true, user: NOBODY, startDeadlineMs: NOBODY_START_MS },
        );
        const banner = serving;
        // The banner's lines after the first come a moment later.
        await expect
          .poll(() => banner.stdout(), { timeout: 10_000 })
          .toContain('network on (own namespace, egress only)');
        const origin = serving.origin;
        const run = async (command: string): Promise<string> => {
          const response = await fetch(`${origin}/api/agents/carol/bash`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ command }),
          });
          const body = (await response.json()) as { output?: string };
          if (response.status !== 200)
            throw new Error(`${response.status}: ${JSON.stringify(body)}`);
          return body.output ?? '';
        };
        expect(await run('id -u')).not.toBe('0');
        expect(
          await run(tryConnect(`socket.create_connection(('${testHost}', ${TEST_HOST_PORT}), 10)`)),
        ).toBe('reached');
        // Over IPv6 too: its user namespace entered to make the address usable at once.
        expect(
          await run(
            tryConnect(`socket.create_connection(('${testHost6}', ${TEST_HOST_PORT}), 10)`),
          ),
        ).toBe('reached');
        const port = new URL(origin).port;
        expect(await run(tryConnect(`socket.create_connection(('127.0.0.1', ${port}), 3)`))).toBe(
          'refused: ConnectionRefusedError',
        );
        expect(serving.stderr()).not.toContain('could not be attached');

        // Killed, it leaves no slirp4netns: their exit sockets close with the server.
        const key = runKeyOf(join(root, 'data'));
        expect((await egressOf(key)).length).toBeGreaterThanOrEqual(1);
        serving.process.kill('SIGKILL');
        await serving.exited;
        await expect.poll(async () => (await egressOf(key)).length, { timeout: 20_000 }).toBe(0);
      } finally {
        if (serving?.process.exitCode === null && serving.process.signalCode === null)
          serving.process.kill('SIGTERM');
        await serving?.exited;
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
