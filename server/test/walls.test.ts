/**
 * The walls of a sandbox that hold whoever runs the server (issue 21), attacked as a hostile
 * agent would: through the tool alone, with an agent's own token, against a real server
 * process. Every attack runs against a server started as root (shells then run as the
 * dedicated shell user) and against one started as an unprivileged user (`nobody`; shells are
 * that user in a user namespace): no write to any file under /proc/sys, no nested namespace,
 * keyring, BPF or perf event, no root-only file, no secret of the server's environment, and
 * nothing of the home beyond the PATH directories themselves.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { cleanEnv, type Serving, serve } from './support/cli-process.ts';
import { SANDBOX_WORKS } from './support/sandbox-check.ts';

/** The unprivileged server of the second run: every Debian system has it. */
const NOBODY = { uid: 65534, gid: 65534 };
/** Fewer files than this under /proc/sys means the walk did not run. */
const MIN_SYSCTL_FILES = 100;
/**
 * How long a server from source may take to its banner (ms): the one run as nobody has a
 * cold tsx cache of its own to fill, and on a machine shared by many test runs a start took
 * 16 s; the default 20 s was passed under that load.
 */
const START_DEADLINE_MS = 60_000;
/** beforeAll starts that server and mints a token: the start's bound and some. */
const SETUP_TIMEOUT_MS = START_DEADLINE_MS + 30_000;
/** A /proc/sys file that took writes in the attack the issue reports. */
const SYSCTL_PROBE = '/proc/sys/kernel/printk_ratelimit_burst';

interface Run {
  readonly name: string;
  /** Undefined: as this test process's own user. */
  readonly user: { readonly uid: number; readonly gid: number } | undefined;
  /** The server is root: its shells must run as the dedicated shell user. */
  readonly root: boolean;
}

const asRoot = process.getuid?.() === 0;
const runs: Run[] = asRoot
  ? [
      { name: 'a server run by root', user: undefined, root: true },
      { name: 'a server run by an unprivileged user', user: NOBODY, root: false },
    ]
  : [{ name: 'a server run by an unprivileged user', user: undefined, root: false }];
if (!asRoot) {
  process.stdout.write(
    'walls: the run as root is NOT RUN — this test process is not root (CI runs it as root)\n',
  );
}

/**
 * Syscall numbers for the probes, from the kernel's own headers (x86-64: unistd_64.h,
 * aarch64: asm-generic/unistd.h), kept apart from seccomp-filter.ts's table so an error
 * there cannot hide here.
 */
const PROBES: Record<string, Record<string, number>> = {
  x64: { keyctl: 250, add_key: 248, perf_event_open: 298, bpf: 321, mount: 165, setns: 308 },
  arm64: { keyctl: 219, add_key: 217, perf_event_open: 241, bpf: 280, mount: 40, setns: 268 },
};

/** A python3 program that makes each probe syscall and prints `name errno`, one a line. */
function probeProgram(numbers: Record<string, number>): string {
  const calls = Object.entries(numbers)
    .map(([name, nr]) => `("${name}", ${nr})`)
    .join(', ');
  return [
    'import ctypes',
    'libc = ctypes.CDLL(None, use_errno=True)',
    `for name, nr in [${calls}]:`,
    '    ctypes.set_errno(0)',
    '    result = libc.syscall(nr, 0, 0, 0, 0, 0)',
    '    print(name, ctypes.get_errno() if result == -1 else "succeeded")',
  ].join('\n');
}

function uidOf(name: string): number | null {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [entry, , uid] = line.split(':');
    if (entry === name) return Number(uid);
  }
  return null;
}

/** The Uid line of a process as the host sees it: real, effective, saved, file system. */
function hostUids(pid: number): number[] {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Uid:'));
  return (line ?? '').split(/\s+/).slice(1).filter(Boolean).map(Number);
}

function chownTree(path: string, user: { uid: number; gid: number }): void {
  const done = spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, path]);
  if (done.status !== 0) throw new Error(`chown -R failed: ${done.stderr}`);
}

describe.runIf(SANDBOX_WORKS).each(runs)('walls, $name', { timeout: 120_000 }, (run) => {
  const token = `js_walls_${run.root ? 'root' : 'user'}`;
  let scratch: string;
  let home: string;
  let shown: string;
  let serving: Serving;
  let agentToken: string;

  async function request(path: string, init: RequestInit & { token?: string } = {}) {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${init.token ?? token}`);
    return fetch(`${serving.origin}${path}`, { ...init, headers });
  }

  async function call(command: string): Promise<string> {
    const response = await request('/api/agents/mallory/bash', {
      method: 'POST',
      token: agentToken,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command }),
    });
    const body = (await response.json()) as { output?: string };
    if (response.status !== 200) throw new Error(`${response.status}: ${JSON.stringify(body)}`);
    return body.output ?? '';
  }

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'jumpseat-walls-'));
    chmodSync(scratch, 0o755);
    // A home like a developer's: a PATH dir beside keyrings and credentials.
    home = join(scratch, 'home');
    mkdirSync(join(home, '.local', 'bin'), { recursive: true });
    mkdirSync(join(home, '.local', 'share', 'keyrings'), { recursive: true });
    mkdirSync(join(home, '.cargo'), { recursive: true });
    mkdirSync(join(home, 'opt', 'tool-1', 'bin'), { recursive: true });
    writeFileSync(join(home, '.local', 'bin', 'hello'), '#!/bin/sh\necho hello from a PATH dir\n');
    chmodSync(join(home, '.local', 'bin', 'hello'), 0o755);
    writeFileSync(join(home, 'opt', 'tool-1', 'bin', 'real'), '#!/bin/sh\necho the real tool\n');
    chmodSync(join(home, 'opt', 'tool-1', 'bin', 'real'), 0o755);
    symlinkSync(join(home, 'opt', 'tool-1', 'bin', 'real'), join(home, '.local', 'bin', 'linked'));
    writeFileSync(join(home, 'opt', 'tool-1', 'licence-key'), 'tool-secret\n');
    writeFileSync(join(home, '.local', 'share', 'keyrings', 'login.keyring'), 'keyring\n');
    writeFileSync(join(home, '.cargo', 'credentials.toml'), 'token = "cargo"\n');
    mkdirSync(join(scratch, 'workspace'));
    if (run.user) {
      chownTree(home, run.user);
      chownTree(join(scratch, 'workspace'), run.user);
      mkdirSync(join(scratch, 'data'), { mode: 0o700 });
      chownSync(join(scratch, 'data'), run.user.uid, run.user.gid);
    }
    // Root's files, shown to every shell read-only.
    shown = join(scratch, 'shown');
    mkdirSync(shown, { mode: 0o755 });
    writeFileSync(join(shown, 'public-0644'), 'public\n', { mode: 0o644 });
    writeFileSync(join(shown, 'secret-0600'), 'root only\n', { mode: 0o600 });
    serving = await serve(
      [
        '--data-dir',
        join(scratch, 'data'),
        '--workspace',
        join(scratch, 'workspace'),
        '--sandbox',
        'bwrap',
        '--readable',
        shown,
        '--pass-env',
        'DATABASE_URL',
      ],
      cleanEnv({
        JUMPSEAT_TOKEN: token,
        HOME: home,
        PATH: `${join(home, '.local', 'bin')}:${process.env.PATH ?? ''}`,
        DB_PASS: 'db-pass',
        MYSQL_PWD: 'mysql-pwd',
        DATABASE_URL: 'postgres://u:pw@db.example/app',
        GH_PAT: 'ghp_walls',
        CI_JOB_JWT: 'eyJ.walls',
      }),
      {
        fromSource: true,
        startDeadlineMs: START_DEADLINE_MS,
        ...(run.user ? { user: run.user } : {}),
      },
    );
    const minted = await request('/api/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'agent', agent: 'mallory' }),
    });
    agentToken = String(((await minted.json()) as { token: string }).token);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    if (serving) {
      serving.process.kill('SIGTERM');
      await serving.exited;
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  it('says in its banner who shells run as and that the filter holds', () => {
    const who = run.root
      ? `as jumpseat-shell (uid ${uidOf('jumpseat-shell')})`
      : `as the server's user (uid ${run.user?.uid ?? process.getuid?.()}) in a user namespace`;
    expect(serving.stdout()).toContain(`sandboxed shells run ${who}, under a seccomp filter\n`);
  });

  it('runs the shell as an unprivileged uid on the host', async () => {
    const inside = await call('sleep 600 & id -u');
    const response = await request('/api/sessions');
    const shells = (await response.json()) as SessionInfo[];
    const pid = shells.find((s) => s.agent === 'mallory' && s.state !== 'exited')?.pid ?? 0;
    const expected = run.root ? uidOf('jumpseat-shell') : (run.user?.uid ?? process.getuid?.());
    expect(expected).not.toBe(0);
    expect(hostUids(pid)).toEqual([expected, expected, expected, expected]);
    // After bash's job line ("[1] 7"): the uid inside.
    expect(inside.split('\n').at(-1)).toBe(String(expected));
    // Its children too: the background sleep.
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ');
    for (const child of children.filter(Boolean)) {
      expect(hostUids(Number(child))).toEqual([expected, expected, expected, expected]);
    }
    await call('kill %1; wait');
  });

  it('keeps no capability in any set, no supplementary group and no way back', async () => {
    // The kernel's own account, as the shell (and so the agent) runs.
    const status = await call(
      "grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status",
    );
    const field = (name: string) =>
      status.match(new RegExp(`^${name}:[ \\t]*(.*)$`, 'm'))?.[1]?.trim() ?? `no ${name} line`;
    for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) {
      expect(field(set), set).toMatch(/^0+$/);
    }
    expect(field('NoNewPrivs')).toBe('1');
    if (run.root) {
      const uid = uidOf('jumpseat-shell');
      expect(field('Uid').split(/\s+/)).toEqual([uid, uid, uid, uid].map(String));
      expect(new Set(field('Gid').split(/\s+/)).size).toBe(1);
      expect(field('Gid')).not.toMatch(/^0\b/);
      expect(field('Groups')).toBe('');
    }
    // A setuid program gives nothing back: su and sudo-like binaries stay the shell user.
    expect(
      await call('ls -l /usr/bin/su | cut -c4; su -c "id -u" root </dev/null 2>&1; id -u'),
    ).not.toMatch(/^0$/m);
  });

  it('opens no file under /proc/sys for writing, and the host value stays', async () => {
    const before = readFileSync(SYSCTL_PROBE, 'utf8');
    const walk = await call(
      [
        'tried=0 writable=0',
        'while IFS= read -r f; do',
        '  tried=$((tried+1))',
        // Opening for writing is the wall; nothing is written even where it would open.
        '  if { : >"$f"; } 2>/dev/null; then writable=$((writable+1)); echo "WRITABLE $f"; fi',
        'done < <(find /proc/sys -type f 2>/dev/null)',
        'echo "tried $tried, writable $writable"',
      ].join('\n'),
    );
    const tried = Number(/^tried (\d+), writable 0$/.exec(walk)?.[1] ?? 0);
    expect(walk).toMatch(/^tried \d+, writable 0$/);
    expect(tried).toBeGreaterThan(MIN_SYSCTL_FILES);
    expect(await call(`echo 11 > ${SYSCTL_PROBE}`)).toBe(
      `bash: ${SYSCTL_PROBE}: Read-only file system\n[exit code: 1]`,
    );
    expect(readFileSync(SYSCTL_PROBE, 'utf8')).toBe(before);
  });

  it('cannot write /proc/sysrq-trigger, /proc/irq or /proc/bus', async () => {
    expect(
      await call(
        [
          'writable=0',
          'for f in /proc/sysrq-trigger $(find /proc/irq /proc/bus -type f 2>/dev/null); do',
          '  if { : >"$f"; } 2>/dev/null; then writable=$((writable+1)); echo "WRITABLE $f"; fi',
          'done',
          'echo "writable $writable"',
        ].join('\n'),
      ),
    ).toBe('writable 0');
  });

  it('refuses nested user namespaces, keyrings, perf, BPF, mounts and setns', async () => {
    expect(await call('unshare -Ur true')).toBe(
      'unshare: unshare failed: Operation not permitted\n[exit code: 1]',
    );
    expect(await call('grep ^Seccomp: /proc/self/status')).toBe('Seccomp:\t2');
    const numbers = PROBES[process.arch];
    if (numbers === undefined) throw new Error(`no probe numbers for ${process.arch}`);
    const probed = await call(`python3 - <<'EOF'\n${probeProgram(numbers)}\nEOF`);
    expect(probed).toBe(
      Object.keys(numbers)
        .map((name) => `${name} 1`)
        .join('\n'),
    );
    // Threads and subshells still start (clone without namespace flags, clone3's fallback).
    expect(
      await call(
        `python3 -c 'import threading; t = threading.Thread(target=print, args=("thread",)); t.start(); t.join()'; (echo subshell) | cat`,
      ),
    ).toBe('thread\nsubshell');
  });

  it("cannot write root's 0644 files nor read its 0600 ones", async () => {
    if (!asRoot) {
      // The files are the test process's own: nothing of root's to keep from the shell.
      process.stdout.write("walls: root's files NOT CHECKED — this test process is not root\n");
      return;
    }
    expect(await call(`cat ${shown}/public-0644`)).toBe('public');
    expect(await call(`{ echo x >> ${shown}/public-0644; } 2>&1 | sed 's/.*: //'`)).toMatch(
      /^(Read-only file system|Permission denied)$/,
    );
    expect(await call(`cat ${shown}/secret-0600 2>&1 | sed 's/.*: //'`)).toBe('Permission denied');
    expect(await call(`cat /etc/shadow 2>&1 | sed 's/.*: //'`)).toBe('Permission denied');
    expect(readFileSync(join(shown, 'public-0644'), 'utf8')).toBe('public\n');
  });

  it("keeps the server's secrets out of the environment; --pass-env passes one", async () => {
    expect(
      await call('for v in DB_PASS MYSQL_PWD GH_PAT CI_JOB_JWT; do echo "$v=${!v-unset}"; done'),
    ).toBe('DB_PASS=unset\nMYSQL_PWD=unset\nGH_PAT=unset\nCI_JOB_JWT=unset');
    expect(await call('echo "$DATABASE_URL"')).toBe('postgres://u:pw@db.example/app');
  });

  it('shows the PATH dirs of the home and their links’ real dirs, nothing more', async () => {
    expect(await call('hello; linked')).toBe('hello from a PATH dir\nthe real tool');
    expect(await call(`ls -A1 ${home}/.local`)).toBe('bin');
    expect(await call(`ls -A1 ${home}/opt/tool-1`)).toBe('bin');
    expect(await call(`ls -A1 ${home}`)).toBe('.local\nopt');
    expect(
      await call(
        `cat ${home}/.local/share/keyrings/login.keyring ${home}/.cargo/credentials.toml 2>&1 | sed 's/.*: //'`,
      ),
    ).toBe('No such file or directory\nNo such file or directory');
  });

  it('still does ordinary work in its workspace, /tmp and home', async () => {
    expect(
      await call(
        'echo w > own.txt && cat own.txt && echo t > /tmp/t && cat /tmp/t && echo h > ~/h && cat ~/h && echo s > /dev/shm/s && cat /dev/shm/s',
      ),
    ).toBe('w\nt\nh\ns');
    // The sandbox's own /tmp and /dev/shm are everyone's and sticky, as on any host.
    expect(await call('stat -c %a /tmp /dev/shm')).toBe('1777\n1777');
    const clipped = await call('seq 1 20000');
    const saved = /\[full output saved to (.+)\]/.exec(clipped)?.[1] ?? '';
    expect(saved).not.toBe('');
    expect(await call(`tail -n 1 ${saved}`)).toBe('20000');
  });
});

describe('--readable refuses a directory that holds the temp dir', {
  timeout: SETUP_TIMEOUT_MS,
}, () => {
  it('stops the server at start with a line naming the flag', async () => {
    const root = mkdtempSync(join(tmpdir(), 'jumpseat-walls-readable-'));
    try {
      const started = serve(
        ['--data-dir', join(root, 'data'), '--readable', tmpdir()],
        cleanEnv({ JUMPSEAT_TOKEN: 'js_walls_readable', HOME: '/nonexistent' }),
        { fromSource: true, startDeadlineMs: START_DEADLINE_MS },
      );
      await expect(started).rejects.toThrow(
        `--readable: ${tmpdir()} holds the temp dir ${tmpdir()} (every shell's private files); name a directory of the project instead`,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
