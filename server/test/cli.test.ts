/**
 * The `jumpseat` command as a user runs it: `serve` starts a real server, and `exec`,
 * `sessions` and `token create` talk to it from other processes.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, jumpseat, REPO, type Serving, serve } from './support/cli-process.ts';

/** Each CLI run starts node with tsx (1–5 s on a busy two-core machine); tests run several. */
const CLI_TEST_TIMEOUT_MS = 120_000;

let root: string;
let server: Serving;
let adminEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-cli-'));
  server = await serve(['--data-dir', join(root, 'data')], cleanEnv());
  const adminToken = readFileSync(join(root, 'data', 'admin-token'), 'utf8').trim();
  adminEnv = cleanEnv({ JUMPSEAT_URL: server.origin, JUMPSEAT_TOKEN: adminToken });
});
afterAll(async () => {
  if (server.process.exitCode === null) {
    server.process.kill('SIGTERM');
    await server.exited;
  }
  rmSync(root, { recursive: true, force: true });
});

describe('jumpseat exec', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it("prints the result text and exits with the command's exit code", async () => {
    const run = await jumpseat(
      ['exec', '--agent', 'cli-a', '--', 'cd /tmp && echo hello from $(pwd); ls /nonexistent'],
      adminEnv,
    );
    expect(run).toEqual({
      status: 2,
      stdout:
        "hello from /tmp\nls: cannot access '/nonexistent': No such file or directory\n[exit code: 2]\n",
      stderr: '',
    });
    const again = await jumpseat(['exec', '--agent', 'cli-a', 'pwd'], adminEnv);
    expect(again).toEqual({ status: 0, stdout: '/tmp\n', stderr: '' });
  });

  it("outlasts fetch's headers timeout: a call takes as long as its command", async () => {
    // Node's fetch gives up after 300 s without reply headers; shortened to 1 s in the CLI's
    // process by a preload, a 2.5 s call still completes, so no fetch default is in its way.
    const preload = join(root, 'short-fetch-timeout.mjs');
    writeFileSync(
      preload,
      [
        "await fetch('data:,warm');",
        "const key = Symbol.for('undici.globalDispatcher.1');",
        'globalThis[key] = new globalThis[key].constructor({ headersTimeout: 1000 });',
      ].join('\n'),
    );
    const run = await jumpseat(['exec', '--agent', 'cli-long', '--', 'sleep 2.5; echo late'], {
      ...adminEnv,
      NODE_OPTIONS: `--import=${preload}`,
    });
    expect(run).toEqual({ status: 0, stdout: 'late\n', stderr: '' });
  });

  it('curl: a call takes as long as its command (the server sets no request timeout)', async () => {
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        'curl',
        [
          '-sS',
          '-H',
          `Authorization: Bearer ${adminEnv.JUMPSEAT_TOKEN}`,
          '-H',
          'Content-Type: application/json',
          '-d',
          '{"command":"sleep 2.5; echo late"}',
          `${server.origin}/api/agents/cli-curl/bash`,
        ],
        (error, stdout) => (error === null ? resolve(stdout) : reject(error)),
      );
    });
    expect(JSON.parse(output)).toEqual({ output: 'late' });
  });

  it('exits 125 while the command waits for input, and types the next exec into it', async () => {
    const waiting = await jumpseat(
      ['exec', '--agent', 'cli-read', '--', 'read -p "Name? " n'],
      adminEnv,
    );
    expect(waiting).toEqual({
      status: 125,
      stdout: 'Name? \n[waiting for input: bash]\n',
      stderr: '',
    });
    const answered = await jumpseat(['exec', '--agent', 'cli-read', 'Ada'], adminEnv);
    expect(answered.status).toBe(0);
    const read = await jumpseat(['exec', '--agent', 'cli-read', 'echo "$n"; exit 3'], adminEnv);
    expect(read.status).toBe(3);
    expect(read.stdout).toMatch(
      // No `exit` line: the command runs from a sourced file (bash-errexit.ts), as in a script.
      /^Ada\n\[shell exited: code 3\]\nThe persistent bash shell was reset;/,
    );
  });

  it('reads the token from a file given with --token-file, and says why a call is refused', async () => {
    const minted = await jumpseat(
      ['token', 'create', '--role', 'agent', '--agent', 'cli-own'],
      adminEnv,
    );
    expect(minted.status).toBe(0);
    expect(minted.stdout).toMatch(/^js_\S+\n$/);
    const tokenFile = join(root, 'agent-token');
    writeFileSync(tokenFile, minted.stdout, { mode: 0o600 });
    const env = cleanEnv({ JUMPSEAT_URL: server.origin });

    const own = await jumpseat(
      ['exec', '--token-file', tokenFile, '--agent', 'cli-own', 'echo mine'],
      env,
    );
    expect(own).toEqual({ status: 0, stdout: 'mine\n', stderr: '' });
    const other = await jumpseat(
      ['exec', '--token-file', tokenFile, '--agent', 'cli-x', 'true'],
      env,
    );
    expect(other).toEqual({
      status: 1,
      stdout: '',
      stderr: 'jumpseat: this token may only call agent "cli-own" (403 FORBIDDEN)\n',
    });
  });

  it('prints {output, exitCode, ending, durationMs} with --json, with the same exit status', async () => {
    const done = await jumpseat(
      ['exec', '--json', '--agent', 'cli-json', '--', 'echo hi; (exit 3)'],
      adminEnv,
    );
    expect([done.status, done.stderr]).toEqual([3, '']);
    const parsed: unknown = JSON.parse(done.stdout);
    expect(parsed).toEqual({
      output: 'hi\n[exit code: 3]',
      exitCode: 3,
      ending: 'completed',
      durationMs: expect.any(Number),
    });
    expect(Object.keys(parsed as object)).toEqual(['output', 'exitCode', 'ending', 'durationMs']);

    const waiting = await jumpseat(
      ['exec', '--json', '--agent', 'cli-json', '--', 'read -p "Name? " n'],
      adminEnv,
    );
    expect(waiting.status).toBe(125);
    expect(JSON.parse(waiting.stdout)).toMatchObject({
      output: 'Name? \n[waiting for input: bash]',
      exitCode: null,
      ending: 'waiting_input',
    });
    const exited = await jumpseat(['exec', '--json', '--agent', 'cli-json', 'Ada'], adminEnv);
    expect(JSON.parse(exited.stdout)).toMatchObject({ output: '', exitCode: 0 });
    const shell = await jumpseat(['exec', '--json', '--agent', 'cli-json', 'exit 4'], adminEnv);
    expect(shell.status).toBe(4);
    expect(JSON.parse(shell.stdout)).toMatchObject({ exitCode: 4, ending: 'shell_exit' });
  });

  it('refuses a token on the command line and a missing agent, with status 2', async () => {
    const token = await jumpseat(['exec', '--token', 'js_x', '--agent', 'a', 'true'], adminEnv);
    expect(token.status).toBe(2);
    expect(token.stderr).toBe(
      'jumpseat: --token is not accepted: every process can read command lines; use JUMPSEAT_TOKEN or --token-file (see jumpseat exec --help)\n',
    );
    const agent = await jumpseat(['exec', 'true'], adminEnv);
    expect(agent).toEqual({
      status: 2,
      stdout: '',
      stderr: 'jumpseat: --agent is required (see jumpseat exec --help)\n',
    });
  });

  it('refuses token create --role agent without --agent with status 2, before any request', async () => {
    const minted = await jumpseat(['token', 'create', '--role', 'agent'], adminEnv);
    expect(minted.status).toBe(2);
    expect(minted.stderr).toMatch(
      /^jumpseat: --role agent needs --agent AGENT: the agent the token may call/,
    );
    const stray = await jumpseat(
      ['token', 'create', '--role', 'viewer', '--agent', 'a1'],
      adminEnv,
    );
    expect(stray.status).toBe(2);
    expect(stray.stderr).toMatch(/^jumpseat: --agent is for --role agent only, not --role viewer/);
  });
});

describe('jumpseat sessions and --help', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('lists the shells in a table', async () => {
    await jumpseat(['exec', '--agent', 'cli-list', 'true'], adminEnv);
    const run = await jumpseat(['sessions'], adminEnv);
    expect(run.status).toBe(0);
    const [header, ...rows] = run.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+AGENT\s+DIALECT\s+STATE\s+PID\s+COMMAND$/);
    expect(rows.some((row) => /^\S+\s+cli-list\s+bash\s+idle\s+\d+$/.test(row))).toBe(true);
  });

  it('prints the package version with --version and -V', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      expect(await jumpseat([flag], cleanEnv())).toEqual({
        status: 0,
        stdout: `${version}\n`,
        stderr: '',
      });
    }
  });

  it('prints help for each command and exits 0', async () => {
    for (const args of [
      ['--help'],
      ['exec', '--help'],
      ['sessions', '--help'],
      ['token', '--help'],
      ['share', '--help'],
      ['serve', '--help'],
    ]) {
      const run = await jumpseat(args, adminEnv);
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^Usage: jumpseat /);
    }
  });
});

describe('jumpseat share', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('creates a link to one shell, lists it once named, and revokes it', async () => {
    const opened = await fetch(`${server.origin}/api/sessions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${adminEnv.JUMPSEAT_TOKEN}`,
        'content-type': 'application/json',
      },
      body: '{"dialect":"bash"}',
    });
    const { id } = (await opened.json()) as { id: string };
    const created = await jumpseat(
      ['share', 'create', id, '--role', 'operator', '--expires-in', '3600'],
      adminEnv,
    );
    expect(created.status).toBe(0);
    expect(created.stdout).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/login\?token=js_[A-Za-z0-9_-]{43}\n$/,
    );
    const token = new URL(created.stdout.trim()).searchParams.get('token') ?? '';
    await fetch(`${server.origin}/api/me/name`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"name":"Ann"}',
    });
    const listed = await jumpseat(['share', 'list', id], adminEnv);
    const [header, row, ...more] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+ROLE\s+NAME\s+EXPIRES$/);
    expect(row).toMatch(/^[0-9a-f-]{36}\s+operator\s+Ann\s+\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    expect(more).toEqual([]);
    const shareId = row?.split(/\s+/)[0] ?? '';
    const revoked = await jumpseat(['share', 'revoke', id, shareId], adminEnv);
    expect(revoked.status).toBe(0);
    const after = await fetch(`${server.origin}/api/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(after.status).toBe(401);
    const bad = await jumpseat(['share', 'create', id, '--expires-in', '5'], adminEnv);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      'jumpseat: --expires-in must be a whole number of seconds from 60 to 2592000 (see jumpseat share --help)\n',
    );
  });
});

describe('jumpseat token', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('mints, lists, renames and revokes a token', async () => {
    const created = await jumpseat(
      ['token', 'create', '--role', 'operator', '--name', 'Ops'],
      adminEnv,
    );
    expect(created.status).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^js_[A-Za-z0-9_-]{43}$/);
    const me = await fetch(`${server.origin}/api/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { id } = (await me.json()) as { id: string };
    const listed = await jumpseat(['token', 'list'], adminEnv);
    expect(listed.status).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+ROLE\s+SCOPE\s+CREATED\s+LAST USED\s+STATUS$/);
    const row = rows.find((line) => line.startsWith(id));
    expect(row).toMatch(
      new RegExp(`^${id}\\s+Ops\\s+operator\\s+-\\s+\\S+Z\\s+\\d{4}-\\S+Z\\s+active$`),
    );
    const renamed = await jumpseat(['token', 'rename', id, '--name', 'Operations'], adminEnv);
    expect(renamed.stdout).toMatch(new RegExp(`^ID\\s+NAME\\n${id}\\s+Operations\\n$`));
    const refused = await jumpseat(['token', 'rename', id, '--name', 'Ann\u202e'], adminEnv);
    expect(refused).toEqual({
      status: 1,
      stdout: '',
      stderr:
        'jumpseat: a name may not hold control, bidi or invisible characters (U+202E found) (400 BAD_REQUEST)\n',
    });
    expect((await jumpseat(['token', 'revoke', id], adminEnv)).status).toBe(0);
    const after = await fetch(`${server.origin}/api/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(after.status).toBe(401);
    const again = await jumpseat(['token', 'list', '--json'], adminEnv);
    const list = JSON.parse(again.stdout) as { id: string; revokedAt: string | null }[];
    expect(list.find((entry) => entry.id === id)?.revokedAt).toMatch(/Z$/);
    const twice = await jumpseat(['token', 'revoke', id], adminEnv);
    expect(twice.status).toBe(1);
    expect(twice.stderr).toBe(`jumpseat: token "${id}" was already revoked (404 NOT_FOUND)\n`);
  });
});

describe('CLI output safety', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it("shows control and bidi characters from an agent's output escaped", async () => {
    const run = await jumpseat(
      ['exec', '--agent', 'cli-esc', '--', "printf 'a\\xe2\\x80\\xaeb\\xe2\\x80\\x8bc\\n\\td'"],
      adminEnv,
    );
    expect(run).toEqual({ status: 0, stdout: 'a\\u202eb\\u200bc\n\td\n', stderr: '' });
  });

  it('shows the raw ESC of a running command escaped in the sessions table', async () => {
    const running = jumpseat(
      ['exec', '--agent', 'cli-esc-run', '--', 'sleep 3 # \x1b]52;c;aGk=\x07'],
      adminEnv,
    );
    let table = '';
    for (let i = 0; i < 40 && !table.includes('sleep 3'); i++) {
      table = (await jumpseat(['sessions'], adminEnv)).stdout;
    }
    expect(table).toContain('sleep 3 # \\x1b]52;c;aGk=\\x07');
    expect(table).not.toContain('\x1b');
    await running;
  });
});

describe('CLI start cost', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it("exec loads no package and none of the server's configuration, only the client", async () => {
    // A module hook records every module the command loads, in the hook's own thread.
    const loaded = join(root, 'loaded-modules.txt');
    const hooks = join(root, 'record-loads.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(loaded)}, url + '\\n');\n  return next(url, context);\n}\n`,
    );
    const register = join(root, 'register-hooks.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`,
    );
    const run = await jumpseat(['exec', '--agent', 'cli-lazy', 'echo lean'], {
      ...adminEnv,
      NODE_OPTIONS: `--import=${register}`,
    });
    expect(run).toEqual({ status: 0, stdout: 'lean\n', stderr: '' });
    const urls = readFileSync(loaded, 'utf8').trim().split('\n');
    expect(urls).toContain(`file://${join(REPO, 'dist', 'client', 'src', 'index.js')}`);
    const heavy = urls.filter((url) =>
      /\/node_modules\/|\/config\/(config|flags|setting-values)\.js$|\/shared\/src\/api\.js$/.test(
        url,
      ),
    );
    expect(heavy).toEqual([]);
  });
});
