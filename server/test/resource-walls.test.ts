/**
 * Resource walls, attacked as an agent would through the tool alone, under small test limits:
 * memory past `--max-memory` is refused and the shell lives on; a tmpfs past `--tmp-size` is
 * full; one agent's busy loops leave another's calls answering; and a workspace filled to
 * its `--workspace-quota` stops at ENOSPC while the history, a token mint and the recording
 * still land. Each wall is checked where it is held (the shell's cgroup files, its mounts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInfo, SessionInfo } from '../../shared/src/api.ts';
import { WorkspaceQuota } from '../src/launch/workspace-quota.ts';
import { startServer, type TestServer } from './support/http-server.ts';
import { SANDBOX_WORKS } from './support/sandbox-check.ts';

const MAX_MEMORY = '64MiB';
const MAX_MEMORY_BYTES = 64 * 1024 * 1024;
const TMP_SIZE = '8MiB';
const QUOTA = '20MiB';
const QUOTA_BYTES = 20 * 1024 * 1024;
/** Weight 50 is cpu.shares 512 on cgroup v1 (100 is the default 1024). */
const CPU_WEIGHT = 50;
const CPU_MAX = 0.5;
/** Busy loops agent A starts: more than the machine's cores. */
const BUSY_LOOPS = 4;
/** Calls agent B makes while A's loops spin. */
const CALLS_DURING_LOOPS = 3;

const IS_ROOT = process.getuid?.() === 0;
const CI = process.env.CI === 'true' || process.env.CI === '1';

let server: TestServer;

async function call(agent: string, command: string): Promise<string> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command });
  const body = (await response.json()) as { output?: string; error?: unknown };
  if (response.status !== 200) throw new Error(`${response.status}: ${JSON.stringify(body)}`);
  return body.output ?? '';
}

async function liveShellOf(agent: string): Promise<SessionInfo> {
  const response = await server.request('/api/sessions', { token: server.adminToken });
  const shell = ((await response.json()) as SessionInfo[]).find(
    (s) => s.agent === agent && s.state !== 'exited' && s.state !== 'ended',
  );
  if (!shell) throw new Error(`no live shell of ${agent}`);
  return shell;
}

/** The directory of `controller`'s cgroup holding `pid` (v1 hierarchy or the v2 one). */
function cgroupDirOf(pid: number, controller: string): string | null {
  for (const line of readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n')) {
    const [, controllers, path] = line.split(':');
    if (path === undefined) continue;
    if (controllers?.split(',').includes(controller)) return `/sys/fs/cgroup/${controller}${path}`;
    if (controllers === '' && line.startsWith('0::') && path !== '/') {
      return `/sys/fs/cgroup/unified${path}`;
    }
  }
  return null;
}

/**
 * Whether the server's workspaces have their quota here. Where the kernel cannot enforce one
 * (not root, no loop devices), the server says so instead of pretending; CI as root has it.
 */
function quotaApplies(): boolean {
  const quota = WorkspaceQuota.detect({
    bytes: QUOTA_BYTES,
    root: server.config.workspace,
    shared: false,
    runKey: 'resource-walls-check',
  });
  if (IS_ROOT && !('why' in quota)) return true;
  expect(IS_ROOT && CI).toBe(false);
  expect('why' in quota).toBe(true);
  return false;
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return fallback;
  }
}

describe.runIf(SANDBOX_WORKS)('resource walls: an agent bounded by small limits', () => {
  beforeAll(async () => {
    server = await startServer({
      flags: [
        '--max-memory',
        MAX_MEMORY,
        '--tmp-size',
        TMP_SIZE,
        '--workspace-quota',
        QUOTA,
        '--cpu-weight',
        String(CPU_WEIGHT),
        '--cpu-max',
        String(CPU_MAX),
      ],
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('refuses memory past --max-memory: the allocation dies, the shell and server live', async () => {
    const allocate = `python3 -c "
b = bytearray(200 * 1024 * 1024)
for i in range(0, len(b), 4096):
    b[i] = 1
print('allocated 200 MB')"`;
    const output = await call('hungry', allocate);
    expect(output).not.toContain('allocated 200 MB');
    const shell = await liveShellOf('hungry');
    const memory = cgroupDirOf(shell.pid ?? 0, 'memory');
    const limit = memory === null ? null : readOr(join(memory, 'memory.limit_in_bytes'), '');
    if (limit === String(MAX_MEMORY_BYTES)) {
      // The cgroup holds: its OOM killer ends the allocating process alone, and no swap
      // takes the overflow (memory + swap is held to the same limit).
      expect(output).toBe('Killed\n[exit code: 137]');
      const memsw = readOr(join(memory as string, 'memory.memsw.limit_in_bytes'), 'absent');
      expect(['absent', String(MAX_MEMORY_BYTES)]).toContain(memsw);
    } else {
      // No memory cgroup here: RLIMIT_AS makes the allocation itself fail.
      expect(output).toMatch(/MemoryError\n\[exit code: 1\]$/);
    }
    expect(await call('hungry', 'echo still-here')).toBe('still-here');
    const health = await server.request('/healthz');
    expect(health.status).toBe(200);
  });

  it('fills /tmp and /dev/shm only to --tmp-size: ENOSPC, and the space is back after rm', async () => {
    for (const dir of ['/tmp', '/dev/shm']) {
      expect(await call('filler', `head -c 20M /dev/zero > ${dir}/x`)).toBe(
        "head: error writing 'standard output': No space left on device\n[exit code: 1]",
      );
      expect(await call('filler', `df -B1 --output=size ${dir} | tail -n 1 | tr -d ' '`)).toBe(
        String(8 * 1024 * 1024),
      );
      expect(
        await call('filler', `rm ${dir}/x && head -c 1M /dev/zero > ${dir}/y && echo ok`),
      ).toBe('ok');
    }
    // /dev itself is read-only: nothing unsized to fill there.
    expect(await call('filler', 'touch /dev/x 2>&1')).toBe(
      "touch: cannot touch '/dev/x': Read-only file system\n[exit code: 1]",
    );
  });

  it("keeps another agent's calls answering while one agent's busy loops spin", async () => {
    expect(
      await call(
        'spinner',
        `for i in $(seq ${BUSY_LOOPS}); do (while :; do :; done) & done >/dev/null; echo spinning`,
      ),
    ).toBe('spinning'); // no `[n] <pid>` lines: the command runs from a sourced file
    const spinner = await liveShellOf('spinner');
    // Only a cgroup of the server's own holds a weight of its own; a server that cannot make
    // one (not root) leaves the shell in the cgroup it was started in.
    const found = cgroupDirOf(spinner.pid ?? 0, 'cpu');
    const cpu = found !== null && /\/jumpseat-[0-9a-f]+-\d+-[0-9a-f]+$/.test(found) ? found : null;
    if (cpu !== null && readOr(join(cpu, 'cpu.shares'), '') !== '') {
      expect(readOr(join(cpu, 'cpu.shares'), '')).toBe(String((CPU_WEIGHT * 1024) / 100));
      expect(readOr(join(cpu, 'cpu.cfs_quota_us'), '')).toBe(String(CPU_MAX * 100_000));
    } else if (cpu !== null) {
      expect(readOr(join(cpu, 'cpu.weight'), '')).toBe(String(CPU_WEIGHT));
    }
    for (let i = 0; i < CALLS_DURING_LOOPS; i++) {
      expect(await call('bystander', `echo answered-${i}`)).toBe(`answered-${i}`);
    }
    // The loops' end notices come first (bash reports each killed job).
    expect(await call('spinner', 'kill $(jobs -p); wait 2>/dev/null; echo stopped')).toMatch(
      /(^|\n)stopped$/,
    );
  });

  it('stops a workspace at --workspace-quota, and history, tokens and recordings still land', async () => {
    if (!quotaApplies()) return;
    const fill = 'head -c 30M /dev/zero > fill';
    expect(await call('disk', fill)).toBe(
      "head: error writing 'standard output': No space left on device\n[exit code: 1]",
    );
    const size = Number(await call('disk', 'df -B1 --output=size . | tail -n 1'));
    expect(size).toBeLessThanOrEqual(QUOTA_BYTES);
    expect(size).toBeGreaterThan(QUOTA_BYTES / 2);
    // The data dir is untouched by that: the call's row, a new token and the recording land.
    const shell = await liveShellOf('disk');
    const calls = (await (
      await server.request(`/api/sessions/${shell.id}/calls`, { token: server.adminToken })
    ).json()) as CallInfo[];
    expect(calls.map((c) => c.command)).toContain(fill);
    const minted = await server.post('/api/tokens', { role: 'agent', agent: 'disk' });
    expect(minted.status).toBe(201);
    await expect
      .poll(async () => {
        const recording = await server.request(`/api/sessions/${shell.id}/recording`, {
          token: server.adminToken,
        });
        return (await recording.text()).includes('No space left on device');
      })
      .toBe(true);
    // Another agent's workspace is a file system of its own, with its own room.
    expect(await call('neighbour', 'head -c 10M /dev/zero > mine && echo fits')).toBe('fits');
    expect(await call('disk', 'rm fill && echo freed')).toBe('freed');
  });

  it("gives an agent named like the quota's template an image of its own, never the template", async () => {
    if (!quotaApplies()) return;
    // The template is made by the first new workspace; then the agent plants a file in what
    // it is given, synced to its image. Were that the template, every workspace made later
    // would start with it (as on the code before: the next agent's workspace held it).
    expect(await call('before-template', 'ls -A | wc -l')).toBe('0');
    const named = `template-${QUOTA_BYTES}`;
    expect(await call(named, 'echo planted > planted && sync -f . && echo ok')).toBe('ok');
    expect(await call('after-template', 'ls -A | wc -l')).toBe('0');
    expect(await call(named, 'cat planted')).toBe('planted');
  });
});
