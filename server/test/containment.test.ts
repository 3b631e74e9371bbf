/**
 * The sandbox, attacked as a hostile agent would: through the tool alone, with an agent's own
 * token, on a server with the default `--sandbox auto` and bubblewrap installed. Each escape
 * the review found must fail (the admin token, the data dir, the server's environment and
 * memory, other agents' files, saved outputs, processes and terminals, descriptors leaked
 * from earlier shells, daemons past a reset, a fork bomb), and ordinary work must still work.
 */
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { cleanEnv, REPO, type Serving, serve } from './support/cli-process.ts';
import { processesRunning } from './support/host-processes.ts';
import { startServer, type TestServer } from './support/http-server.ts';
import { SANDBOX_WORKS } from './support/sandbox-check.ts';

/** A limit small enough for a bounded fork bomb to reach in a moment. */
const TEST_MAX_PROCESSES = 64;
const MAX_OUTPUT_CHARS = 200;

let server: TestServer;
let mallory: string;
let victim: string;

async function call(token: string, agent: string, command: string): Promise<string> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command }, token);
  const body = (await response.json()) as { output?: string; error?: unknown };
  if (response.status !== 200) throw new Error(`${response.status}: ${JSON.stringify(body)}`);
  return body.output ?? '';
}

const asMallory = (command: string) => call(mallory, 'mallory', command);
const asVictim = (command: string) => call(victim, 'victim', command);

async function sessions(): Promise<SessionInfo[]> {
  const response = await server.request('/api/sessions', { token: server.adminToken });
  return (await response.json()) as SessionInfo[];
}

function children(pid: number): number[] {
  const found: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`, { withFileTypes: false })) {
    const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
    for (const child of text.split(' ')) if (child) found.push(Number(child));
  }
  return found;
}

/** Every process of the shell's tree, from the process node-pty started (the shell's
 *  ancestor in a sandbox) down. */
function treeOf(shellPid: number): number[] {
  let top = shellPid;
  for (;;) {
    const stat = readFileSync(`/proc/${top}/stat`, 'utf8');
    const [, ppid, , session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(session) === top || Number(ppid) <= 1) break;
    top = Number(ppid);
  }
  const all: number[] = [];
  const queue = [top];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    all.push(pid);
    queue.push(...children(pid));
  }
  return all;
}

function descriptorsOf(pid: number): string[] {
  return readdirSync(`/proc/${pid}/fd`).map((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return '(gone)';
    }
  });
}

describe.runIf(SANDBOX_WORKS)(
  'containment: an agent reaches its own workspace and terminal only',
  () => {
    beforeAll(async () => {
      server = await startServer({
        flags: [
          '--max-processes',
          String(TEST_MAX_PROCESSES),
          '--max-output-chars',
          String(MAX_OUTPUT_CHARS),
        ],
      });
      mallory = await server.mint({ role: 'agent', agent: 'mallory' });
      victim = await server.mint({ role: 'agent', agent: 'victim' });
      await asVictim('echo the-victims-secret > secret.txt');
    });

    afterAll(async () => {
      await server?.close();
    });

    it('runs each shell in a PID namespace of its own by default', async () => {
      expect(server.config.sandbox).toBe('auto');
      await asMallory('true');
      await asVictim('true');
      const pids = (await sessions()).filter((s) => s.state !== 'exited').map((s) => s.pid ?? 0);
      const namespaces = new Set(pids.map((pid) => readlinkSync(`/proc/${pid}/ns/pid`)));
      expect(namespaces.size).toBe(pids.length);
      expect(namespaces.has(readlinkSync('/proc/self/ns/pid'))).toBe(false);
    });

    it('leaks no descriptor of the server or of other shells into any shell process', async () => {
      // Several live shells, opened one after another: each new one would inherit the PTY
      // masters of those before it without the prelude.
      await asVictim('true');
      await asMallory('exit');
      await asMallory('sleep 30 & true');
      await call(server.adminToken, 'third', 'true');
      const live = (await sessions()).filter((s) => s.state !== 'exited' && s.pid !== null);
      expect(live.length).toBeGreaterThanOrEqual(3);
      for (const shell of live) {
        const tty = readlinkSync(`/proc/${shell.pid}/fd/0`);
        expect(tty).toMatch(/^\/dev\/pts\/\d+$/);
        for (const pid of treeOf(shell.pid ?? 0)) {
          for (const target of descriptorsOf(pid)) {
            // Its own terminal (seen as /dev/console inside the sandbox), /dev/null, or
            // something the process opened itself (pipes, its own files): never a PTY master,
            // another terminal, or a file or socket of the server's.
            expect(target).not.toBe('/dev/ptmx');
            if (target.startsWith('/dev/pts/')) expect(target).toBe(tty);
            expect(target).not.toContain(server.config.dataDir);
            expect(target).not.toMatch(/^socket:/);
          }
        }
      }
    });

    it('cannot read the admin token, the data dir or the history', async () => {
      const dataDir = server.config.dataDir;
      expect(
        await asMallory(
          `for f in ${dataDir}/admin-token ${dataDir}/history.db ${dataDir}/tokens.json ../admin-token; do test -e "$f" && echo "present $f" || echo absent; done`,
        ),
      ).toBe('absent\nabsent\nabsent\nabsent');
      // The server's own source and dependencies are hidden too.
      expect(await asMallory(`ls -A ${REPO} | wc -l`)).toBe('0');
    });

    it('does not see the server or other shells: no environ, no mem, no signal', async () => {
      const comms = await asMallory('cat /proc/[0-9]*/comm | sort -u');
      expect(comms.split('\n')).not.toContain('node');
      expect(await asMallory(`kill -0 ${process.pid} 2>&1 || echo refused`)).toMatch(/refused$/);
      expect(await asMallory('grep -l JUMPSEAT /proc/[0-9]*/environ 2>/dev/null | wc -l')).toBe(
        '0',
      );
      const victimPid = (await sessions()).find(
        (s) => s.agent === 'victim' && s.state !== 'exited',
      )?.pid;
      expect(await asMallory(`test -e /proc/${victimPid}/mem && echo visible || echo hidden`)).toBe(
        'hidden',
      );
    });

    it("cannot read another agent's files or saved outputs, and reads its own", async () => {
      const victimDir = join(server.config.workspace, 'victim');
      expect(
        await asMallory(`cat ${victimDir}/secret.txt 2>&1; ls ${server.config.workspace}`),
      ).toBe(`cat: ${victimDir}/secret.txt: No such file or directory\nmallory`);
      const clipped = await asVictim(`seq 1 2000 | sed 's/^/victim-line-/'`);
      const saved = /\[full output saved to (.+)\]/.exec(clipped)?.[1] ?? '';
      expect(saved).not.toBe('');
      expect(await asVictim(`tail -n 1 ${saved}`)).toBe('victim-line-2000');
      expect(await asMallory(`cat ${saved} 2>&1 | head -n 1`)).toBe(
        `cat: ${saved}: No such file or directory`,
      );
    });

    it("cannot write into another shell's terminal", async () => {
      // Every terminal the agent can find: its own devpts holds none of the others.
      const tried = await asMallory(
        'ls /dev/pts; for t in /dev/pts/[0-9]*; do echo "NOTE FROM THE OPERATOR" >"$t" && echo "wrote $t"; done 2>/dev/null; true',
      );
      expect(tried).toBe('ptmx');
      expect(await asVictim('echo clean')).toBe('clean');
    });

    it('leaves no daemon behind a reset, however it detached', async () => {
      await asMallory(
        'setsid -f sleep 4242; (setsid sleep 4243 &); nohup sleep 4244 >/dev/null 2>&1 &',
      );
      const detached = () =>
        ['4242', '4243', '4244'].map((s) => processesRunning('sleep', s).length);
      await expect.poll(detached).toEqual([1, 1, 1]);
      expect(await asMallory('exit 0')).toContain('[shell exited: code 0]');
      expect(detached()).toEqual([0, 0, 0]);
    });

    it('holds a fork bomb to its limit while the others keep working', async () => {
      const bomb = await asMallory(
        `python3 -c "
import os, time
n = 0
for i in range(${TEST_MAX_PROCESSES * 3}):
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
    except OSError:
        pass
print(n)"`,
      );
      expect(Number(bomb)).toBeLessThan(TEST_MAX_PROCESSES);
      expect(await asVictim('echo still-working')).toBe('still-working');
      expect(await call(server.adminToken, 'newcomer', 'echo started')).toBe('started');
      expect(await asMallory('kill -9 $$')).toContain('[shell killed by signal: SIGKILL]');
    });

    it('answers 503 with the reason when a workspace cannot be made (a file in the way)', async () => {
      const inTheWay = join(server.config.workspace, 'blocked');
      writeFileSync(inTheWay, 'not a directory');
      const token = await server.mint({ role: 'agent', agent: 'blocked' });
      const response = await server.post('/api/agents/blocked/bash', { command: 'true' }, token);
      expect(response.status).toBe(503);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('SHELL_UNAVAILABLE');
      expect(error.message).toMatch(
        new RegExp(`^cannot make the shell's workspace ${inTheWay} \\((EEXIST|ENOTDIR)\\)$`),
      );
      expect(await asVictim('echo unaffected')).toBe('unaffected');
    });

    it('does ordinary work: files, python3, a background job within a call, its own /tmp', async () => {
      expect(await asMallory('echo data > notes.txt && cat notes.txt && pwd')).toBe(
        `data\n${join(server.config.workspace, 'mallory')}`,
      );
      expect(await asMallory('python3 -c "print(6*7)"')).toBe('42');
      // The command runs from a sourced file (bash-errexit.ts): as in a script, bash prints no
      // `[1] <pid>` for a job started there, but still says when it is done.
      expect(await asMallory('(sleep 0.2; echo from-job) & wait; echo done')).toMatch(
        /^from-job\n\[1\]\+ +Done +\( sleep 0\.2; echo from-job \)\ndone$/,
      );
      expect(await asMallory('echo mine > /tmp/own && cat /tmp/own')).toBe('mine');
      expect(await asVictim('cat /tmp/own 2>&1')).toBe(
        'cat: /tmp/own: No such file or directory\n[exit code: 1]',
      );
    });
  },
);

describe.runIf(SANDBOX_WORKS)('containment: network off and a server killed with -9', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'jumpseat-containment-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('--max-memory stops a shell that allocates past it, and the shell goes on', async () => {
    const bounded = await startServer({ flags: ['--max-memory', '256M'] });
    try {
      const allocate = `python3 -c "
b = []
try:
    for i in range(40):
        b.append(bytearray(32 * 1024 * 1024))
    print('allocated', len(b) * 32, 'MiB')
except MemoryError:
    print('MemoryError')"`;
      const first = await bounded.post('/api/agents/hungry/bash', { command: allocate });
      const output = ((await first.json()) as { output: string }).output;
      // A cgroup's OOM killer ends the process (137); an rlimit makes the allocation fail.
      expect(['Killed\n[exit code: 137]', 'MemoryError']).toContain(output);
      const after = await bounded.post('/api/agents/hungry/bash', { command: 'echo still-here' });
      expect(((await after.json()) as { output: string }).output).toBe('still-here');
    } finally {
      await bounded.close();
    }
  });

  it("--network off leaves a shell loopback only: the host's server is out of reach", async () => {
    const offline = await startServer({ flags: ['--network', 'off'] });
    try {
      const port = new URL(offline.origin).port;
      const response = await offline.post('/api/agents/offline/bash', {
        command: `cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; python3 -c "
import socket
try:
    socket.create_connection(('127.0.0.1', ${port}), 2)
    print('reached')
except OSError:
    print('unreachable')"`,
      });
      expect(((await response.json()) as { output: string }).output).toBe('lo\nunreachable');
    } finally {
      await offline.close();
    }
  });

  const daemons = () => ['4251', '4252'].map((s) => processesRunning('sleep', s).length);

  async function startDaemons(serving: Serving, token: string): Promise<void> {
    const response = await fetch(`${serving.origin}/api/agents/daemon/bash`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'setsid -f sleep 4251; sleep 4252 & true' }),
    });
    expect(response.status).toBe(200);
    await expect.poll(daemons).toEqual([1, 1]);
  }

  /** Servers started from source here; two starts on a loaded machine took over 30 s. */
  const SERVER_STARTS_TIMEOUT_MS = 120_000;

  it('a sandboxed shell dies with a server killed by SIGKILL, daemons included', {
    timeout: SERVER_STARTS_TIMEOUT_MS,
  }, async () => {
    const token = 'js_containment_kill9';
    const serving = await serve(
      ['--data-dir', join(scratch, 'sandboxed')],
      cleanEnv({ JUMPSEAT_TOKEN: token }),
    );
    await startDaemons(serving, token);
    serving.process.kill('SIGKILL');
    await serving.exited;
    await expect.poll(daemons, { timeout: 5000 }).toEqual([0, 0]);
  });

  it('unsandboxed, the next start ends what a server killed by SIGKILL left running', {
    timeout: SERVER_STARTS_TIMEOUT_MS,
  }, async () => {
    const token = 'js_containment_sweep';
    const args = ['--data-dir', join(scratch, 'unsandboxed'), '--sandbox', 'off'];
    const first = await serve(args, cleanEnv({ JUMPSEAT_TOKEN: token }), {
      fromSource: true,
    });
    await startDaemons(first, token);
    first.process.kill('SIGKILL');
    await first.exited;
    // Nothing contains an unsandboxed shell: the daemon that left its session outlives the
    // server (the job in its session got the terminal's hangup)...
    expect(daemons()[0]).toBe(1);
    const second = await serve(args, cleanEnv({ JUMPSEAT_TOKEN: token }), {
      fromSource: true,
    });
    try {
      // ...until the next start on the same data dir ends them, and says so.
      await expect.poll(daemons, { timeout: 5000 }).toEqual([0, 0]);
      await expect
        .poll(() => second.stdout())
        .toMatch(/^ended [1-9]\d* processes an earlier run's shells left running$/m);
    } finally {
      second.process.kill('SIGTERM');
      await second.exited;
    }
  });
});
