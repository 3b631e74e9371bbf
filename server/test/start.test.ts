import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** Starting node with tsx and the engine takes about a second; leave room for slow machines. */
const START_DEADLINE_MS = 20_000;
/** The start with --log info under load (two CPU hogs beside other test runs). */
const LOGGED_START_DEADLINE_MS = 60_000;

let root: string;
let child: ChildProcess | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-start-'));
});
afterEach(() => {
  if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  rmSync(root, { recursive: true, force: true });
});

/** The server's environment: ours without any JUMPSEAT_* setting, plus `extra`. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('JUMPSEAT_')),
  );
  return { ...env, ...extra };
}

interface Started {
  readonly process: ChildProcess;
  readonly lines: string[];
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

function start(args: string[], env: NodeJS.ProcessEnv = cleanEnv()): Started {
  const started = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts', ...args], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = started;
  const lines: string[] = [];
  let pending = '';
  let stderr = '';
  started.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    lines.push(...parts);
  });
  started.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => started.on('exit', resolve));
  return { process: started, lines, stderr: () => stderr, exited };
}

/** Resolves once the banner's two lines are out (or fails when the process dies first). */
async function banner(started: Started): Promise<[string, string]> {
  const [listening = '', login = ''] = await bannerLines(started, 2);
  return [listening, login];
}

/** The banner's first `count` lines. */
async function bannerLines(started: Started, count: number): Promise<string[]> {
  const deadline = Date.now() + START_DEADLINE_MS;
  while (started.lines.length < count) {
    if (started.process.exitCode !== null) {
      throw new Error(`server exited ${started.process.exitCode}: ${started.stderr()}`);
    }
    if (Date.now() > deadline) throw new Error(`no banner; stderr: ${started.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return started.lines.slice(0, count);
}

/** A server from source and pwsh --version, side by side on a loaded machine. */
const DIALECTS_TEST_TIMEOUT_MS = 120_000;

async function until(ready: () => boolean): Promise<void> {
  const deadline = Date.now() + START_DEADLINE_MS;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('npm start', () => {
  it('prints the real port and a login URL that logs in, and exits 0 on SIGTERM', async () => {
    const dataDir = join(root, 'data');
    const started = start(['--port', '0', '--data-dir', dataDir]);
    const [listening, login] = await banner(started);

    const match = /^jumpseat listening on http:\/\/127\.0\.0\.1:(\d+)\/$/.exec(listening);
    expect(match).not.toBeNull();
    const port = Number(match?.[1]);
    expect(port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${port}/`;
    expect(await (await fetch(`${base}healthz`)).json()).toEqual({
      ok: true,
      storage: 'ok',
      failing: [],
      database: 'embedded',
    });

    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    expect(login).toBe(`login: ${base}login?token=${encodeURIComponent(adminToken)}`);
    const response = await fetch(login.slice('login: '.length), { redirect: 'manual' });
    expect([200, 503]).toContain(response.status); // the login page (503: web app not built)
    // What the login page does with the URL's token: trade it for this browser's credential.
    const traded = await fetch(`${base}api/login`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(traded.status).toBe(201);

    started.process.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    expect(started.stderr()).toBe('');
  });

  it('writes the JSON log to stderr with --log, and keeps stdout for the banner alone', {
    timeout: 90_000,
  }, async () => {
    const started = start(['--port', '0', '--data-dir', join(root, 'data'), '--log', 'info']);
    // More room than the banner's usual 20 s: started from source under tsx, a loaded machine took longer.
    const startBy = Date.now() + LOGGED_START_DEADLINE_MS;
    while (started.lines.length === 0 && started.process.exitCode === null) {
      if (Date.now() > startBy) throw new Error(`no banner; stderr: ${started.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const listening = started.lines[0] ?? '';
    const base = /^jumpseat listening on (\S+)$/.exec(listening)?.[1] ?? '';
    expect((await fetch(`${base}readyz`)).status).toBe(200);
    await until(() => started.stderr().includes('"url":"/readyz"'));
    started.process.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    // Records are JSON lines (a warning line of the server's own may stand between them).
    const records = started
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { req?: { url?: string } });
    expect(records.some((record) => record.req?.url === '/readyz')).toBe(true);
    // The banner's lines on stdout, and never a log record among them.
    expect(started.lines[0]).toMatch(/^jumpseat listening on /);
    expect(started.lines.filter((line) => line.startsWith('{'))).toEqual([]);
  });

  it('uses JUMPSEAT_TOKEN and keeps it from the shells it starts', async () => {
    const token = 'js_from_the_environment';
    const started = start(
      ['--port', '0', '--data-dir', join(root, 'data')],
      cleanEnv({ JUMPSEAT_TOKEN: token }),
    );
    const [listening, login] = await banner(started);
    // A token the user gave is never echoed: the banner says where it came from instead.
    expect(login).toMatch(/\/login\?token=<the admin token from JUMPSEAT_TOKEN>$/);
    expect(started.lines.join('\n')).not.toContain(token);
    const base = listening.slice('jumpseat listening on '.length);
    const response = await fetch(`${base}api/agents/a1/bash`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ command: 'echo "${JUMPSEAT_TOKEN:-unset}"' }),
    });
    expect(await response.json()).toEqual({ output: 'unset' });
    started.process.kill('SIGINT');
    expect(await started.exited).toBe(0);
  });

  it('names --public-url in the banner and the login URL', async () => {
    const started = start([
      '--port',
      '0',
      '--data-dir',
      join(root, 'data'),
      '--public-url',
      'https://js.example.test/team',
    ]);
    const lines = await bannerLines(started, 3);
    expect(lines[0]).toMatch(/^jumpseat listening on http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(lines[1]).toBe('open: https://js.example.test/team/');
    expect(lines[2]).toMatch(/^login: https:\/\/js\.example\.test\/team\/login\?token=\S+$/);
    started.process.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  });

  it("names the machine's addresses, never 0.0.0.0, for --host 0.0.0.0", async () => {
    const started = start(['--host', '0.0.0.0', '--port', '0', '--data-dir', join(root, 'data')]);
    const lines = await bannerLines(started, 3);
    const port = /:(\d+)\/$/.exec(lines[0] ?? '')?.[1];
    expect(lines[1]).toMatch(/^open: /);
    expect(lines[1]).toContain(`http://127.0.0.1:${port}/`);
    expect(lines[1]).not.toContain('0.0.0.0');
    expect(lines[2]).toMatch(/^login: http:\/\/(?!0\.0\.0\.0)[^/]+\/login\?token=/);
    const login = await fetch((lines[2] ?? '').slice('login: '.length), { redirect: 'manual' });
    expect([200, 503]).toContain(login.status); // the login page (503: web app not built)
    started.process.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  });

  it('says on the banner how shells run, and warns when auto finds no sandbox', async () => {
    const sandboxed = start(['--port', '0', '--data-dir', join(root, 'one')]);
    await banner(sandboxed);
    await until(() => sandboxed.lines.length >= 7);
    expect(sandboxed.lines[2]).toMatch(
      /^shells: (sandboxed \(bubblewrap\), network on \(own namespace, egress only\)|unsandboxed, host network \(the host's loopback included\)), process limit (by cgroup|by rlimit|not enforced)$/,
    );
    expect(sandboxed.lines.slice(3, 7)).toEqual([
      expect.stringMatching(
        /^memory: 4 GiB per (shell by cgroup, tmpfs files included, no swap|process by rlimit \(RLIMIT_AS; no memory cgroup can be made here\))$/,
      ),
      'tmpfs: 1 GiB each (/tmp, /dev/shm, hidden dirs)',
      expect.stringMatching(/^cpu: (weight 100 per shell by cgroup|weight not enforced .*)$/),
      expect.stringMatching(
        /^(workspace quota: 10 GiB per workspace \(a loop-mounted ext4 of its own\)|workspace quota not enforced)$/,
      ),
    ]);
    sandboxed.process.kill('SIGTERM');
    expect(await sandboxed.exited).toBe(0);

    // No bwrap on PATH: auto runs shells unsandboxed and says so on a line of its own.
    const bare = start(
      ['--port', '0', '--data-dir', join(root, 'two')],
      cleanEnv({ PATH: '/nonexistent' }),
    );
    await banner(bare);
    await until(() => bare.lines.length >= 7);
    expect(bare.lines[2]).toMatch(
      /^shells: unsandboxed, host network \(the host's loopback included\), process limit /,
    );
    expect(bare.lines[6]).toBe(
      'warning: shells run UNSANDBOXED (--sandbox auto): bubblewrap (bwrap) is not installed; install bubblewrap or pass --sandbox off to silence this',
    );
    bare.process.kill('SIGTERM');
    expect(await bare.exited).toBe(0);
  });

  it(
    'names the dialects it found on the banner, pwsh with its version',
    async () => {
      const started = start(['--port', '0', '--data-dir', join(root, 'dialects')]);
      await banner(started);
      // Last: pwsh --version (a .NET start) may take long on a loaded machine.
      await until(() => started.lines.some((line) => line.startsWith('dialects: ')));
      expect(started.lines.find((line) => line.startsWith('dialects: '))).toMatch(
        /^dialects: bash(, pwsh \d+\.\d+\.\d+\S*)?$/,
      );
      started.process.kill('SIGTERM');
      expect(await started.exited).toBe(0);
    },
    DIALECTS_TEST_TIMEOUT_MS,
  );

  it('refuses to start with --sandbox bwrap where bubblewrap cannot run', async () => {
    const started = start(
      ['--port', '0', '--data-dir', join(root, 'data'), '--sandbox', 'bwrap'],
      cleanEnv({ PATH: '/nonexistent' }),
    );
    expect(await started.exited).toBe(1);
    expect(started.stderr()).toBe(
      'jumpseat: --sandbox bwrap: the sandbox cannot run here: bubblewrap (bwrap) is not installed\n',
    );
    expect(started.lines).toEqual([]);
  });

  it('exits 2 on a bad flag with one line naming it, starting nothing', async () => {
    const dataDir = join(root, 'data');
    const started = start(['--data-dir', dataDir, '--timeout-ms', 'abc']);
    expect(await started.exited).toBe(2);
    expect(started.stderr()).toBe(
      'jumpseat: --timeout-ms must be a positive integer (got "abc")\n',
    );
    expect(started.lines).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('exits 2 on an unknown flag', async () => {
    const started = start(['--data-dir', join(root, 'data'), '--verbose']);
    expect(await started.exited).toBe(2);
    expect(started.stderr()).toBe('jumpseat: unknown flag --verbose (see --help)\n');
  });

  it('prints the usage for --help and exits 0', async () => {
    const started = start(['--help']);
    expect(await started.exited).toBe(0);
    expect(started.lines[0]).toBe('Usage: jumpseat [flags]');
  });

  it(
    'exits 1 with one line when the port is taken',
    async () => {
      const first = start(['--port', '0', '--data-dir', join(root, 'one')]);
      const [listening] = await banner(first);
      const port = /:(\d+)\/$/.exec(listening)?.[1] ?? '';
      const second = start(['--port', port, '--data-dir', join(root, 'two')]);
      expect(await second.exited).toBe(1);
      expect(second.stderr()).toMatch(
        new RegExp(`^jumpseat: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*\\n$`),
      );
      first.process.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      // Two starts from source one after the other: each may take its whole start deadline.
    },
    3 * START_DEADLINE_MS,
  );
});
