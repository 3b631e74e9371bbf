/**
 * A control plane (`--local-shells off`) and `jumpseat host` processes on loopback, each a
 * real process started from source, in a temporary directory of the test's own. Every
 * process is ended by the test (by pid) and the directory removed.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountsUnder } from '../../src/launch/mount-table.ts';
import { cleanEnv, REPO, type Serving, serve } from './cli-process.ts';

/** Starting node with tsx and the engine under load (other suites beside) takes a while. */
export const PROCESS_START_MS = 90_000;
const POLL_MS = 100;

export interface HostProcess {
  readonly name: string;
  readonly process: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

export class HostCluster {
  readonly root = mkdtempSync(join(tmpdir(), 'jumpseat-hosts-'));
  controlPlane: Serving | undefined;
  adminToken = '';
  readonly hosts: HostProcess[] = [];
  /** The control plane's port (chosen at its first start unless set before). */
  port = 0;

  /**
   * Starts (or restarts, on the same port and data dir) the control plane. `env` adds
   * variables (a JUMPSEAT_TOKEN there is the admin token, as replicas share one).
   */
  async startControlPlane(
    flags: readonly string[] = [],
    env: NodeJS.ProcessEnv = {},
  ): Promise<Serving> {
    if (this.port === 0) this.port = await freePort();
    mkdirSync(join(this.root, 'cp-workspace'), { recursive: true });
    this.controlPlane = await serve(
      [
        '--port',
        String(this.port),
        '--local-shells',
        'off',
        '--data-dir',
        join(this.root, 'cp'),
        '--workspace',
        join(this.root, 'cp-workspace'),
        ...flags,
      ],
      cleanEnv(env),
      { fromSource: true, startDeadlineMs: PROCESS_START_MS },
    );
    this.adminToken =
      env.JUMPSEAT_TOKEN ?? readFileSync(join(this.root, 'cp', 'admin-token'), 'utf8').trim();
    return this.controlPlane;
  }

  /** With `--database`: the replica's id from its banner (a moment after the listening line). */
  async replicaId(): Promise<string> {
    let id = '';
    await this.waitFor(
      async () => {
        id = /^replica: (\S+) /m.exec(this.controlPlane?.stdout() ?? '')?.[1] ?? '';
        return id !== '';
      },
      'the replica line of the banner',
      10_000,
    );
    return id;
  }

  get origin(): string {
    if (this.controlPlane === undefined) throw new Error('no control plane');
    return this.controlPlane.origin;
  }

  async request(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
    const { token = this.adminToken, ...rest } = init;
    const headers = new Headers(rest.headers);
    headers.set('authorization', `Bearer ${token}`);
    if (rest.body !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${this.origin}${path}`, { ...rest, headers });
  }

  async mint(body: Record<string, unknown>): Promise<string> {
    const response = await this.request('/api/tokens', {
      method: 'POST',
      body: JSON.stringify(body),
    });
    const reply = (await response.json()) as { token?: string };
    if (response.status !== 201 || reply.token === undefined) {
      throw new Error(`mint failed: ${response.status} ${JSON.stringify(reply)}`);
    }
    return reply.token;
  }

  /** An agent call; `{status, output}` or `{status, error}`. */
  async call(
    agent: string,
    command: string,
    token = this.adminToken,
  ): Promise<{ status: number; output?: string; error?: { code: string; message: string } }> {
    const response = await this.request(`/api/agents/${agent}/bash`, {
      method: 'POST',
      token,
      body: JSON.stringify({ command }),
    });
    return { status: response.status, ...((await response.json()) as object) };
  }

  /**
   * Starts `jumpseat host --join` with a new host token named `name`; resolves once joined
   * (or at once with `awaitJoin: false`). `launcher` runs it through a command first
   * (`ip netns exec NS`: a machine of its own). The machine's proxy variables are left out
   * (a host on loopback dials directly) unless `env` gives them. `join` is where it dials
   * (default: the control plane's origin; a forwarder a test can cut, for one).
   */
  async startHost(
    name: string,
    flags: readonly string[] = [],
    token?: string,
    launcher: readonly string[] = [],
    {
      env = {},
      awaitJoin = true,
      join: joinUrl = this.origin,
    }: { env?: NodeJS.ProcessEnv; awaitJoin?: boolean; join?: string } = {},
  ): Promise<HostProcess> {
    const hostToken = token ?? (await this.mint({ role: 'host', name }));
    const dir = join(this.root, `host-${name}`);
    mkdirSync(join(dir, 'workspace'), { recursive: true });
    const [command = process.execPath, ...prefix] = [...launcher, process.execPath];
    const child = spawn(
      command,
      [
        ...prefix,
        '--import',
        'tsx',
        'server/src/cli/bin.ts',
        'host',
        '--join',
        joinUrl,
        '--data-dir',
        join(dir, 'data'),
        '--workspace',
        join(dir, 'workspace'),
        ...flags,
      ],
      {
        cwd: REPO,
        env: { ...withoutProxyVariables(cleanEnv({ JUMPSEAT_TOKEN: hostToken })), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const host: HostProcess = {
      name,
      process: child,
      stdout: () => stdout,
      stderr: () => stderr,
      exited: new Promise((resolve) => child.on('exit', resolve)),
    };
    this.hosts.push(host);
    if (!awaitJoin) return host;
    await this.waitFor(
      async () => (await this.hostState(name)) === 'connected',
      `host ${name} to join`,
      PROCESS_START_MS,
      () => stderr,
    );
    return host;
  }

  async hostState(name: string): Promise<string | undefined> {
    const response = await this.request('/api/hosts');
    if (response.status !== 200) return undefined;
    const hosts = (await response.json()) as { name: string; state: string }[];
    return hosts.find((host) => host.name === name)?.state;
  }

  async sessions(): Promise<
    { id: string; agent: string; host?: string; state: string; ending: unknown }[]
  > {
    const response = await this.request('/api/sessions');
    return (await response.json()) as never;
  }

  /** Polls `check` until it holds (bounded by `timeoutMs`). */
  async waitFor(
    check: () => Promise<boolean>,
    what: string,
    timeoutMs: number,
    detail: () => string = () => '',
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        if (await check()) return;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} ${detail()}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Ends every process this cluster started (by pid) and removes its directory. */
  async close(): Promise<void> {
    const children = [...this.hosts.map((host) => host.process), this.controlPlane?.process];
    await Promise.all(children.map((child) => stopProcess(child)));
    // A host killed with SIGKILL leaves its workspaces' unmounting to its quota keeper, which
    // may not have come round to it yet (or may have died with it).
    for (const point of mountsUnder(`${this.root}/`).reverse()) {
      spawnSync('umount', ['-l', point], { stdio: 'ignore' });
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}

const PROXY_VARIABLE = /^(https?|all|no)_proxy$/i;

function withoutProxyVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !PROXY_VARIABLE.test(name)));
}

/** SIGTERM, then SIGKILL if it lingers. */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The lowest port the kernel hands out as an ephemeral one (`listen(0)`, a connection's source). */
function ephemeralLow(): number {
  const text = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
  const low = Number(text.trim().split(/\s+/)[0]);
  return Number.isInteger(low) ? low : 32_768;
}

/** Listens on `port` of loopback (0: any) and gives it back; resolves with the port, or 0 when taken. */
function tryPort(port: number): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(0));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A loopback port that was free a moment ago (taken and given back), below the kernel's
 * ephemeral range: one from inside it (what `listen(0)` gives) may be taken meanwhile as the
 * source port of any outgoing connection, and the server a test started on it a moment later
 * failed with EADDRINUSE (seen in CI: replicas-move.test.ts, port 33093).
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  const first = 10_000;
  for (let tries = 0; tries < 50 && low > first; tries++) {
    const port = await tryPort(first + Math.floor(Math.random() * (low - first)));
    if (port !== 0) return port;
  }
  const port = await tryPort(0);
  if (port === 0) throw new Error('no free loopback port');
  return port;
}
