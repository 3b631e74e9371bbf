/**
 * Graceful shutdown of a real server process: on SIGTERM it stops accepting, tells the
 * callers of in-flight calls (HTTP and MCP) that it is shutting down, ends every shell's
 * whole process tree (background jobs included), records each shell as closed, and exits 0,
 * with many shells as with few.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { JumpseatClient } from 'jumpseat/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cgroupsOf } from './support/cgroup-dirs.ts';
import { cleanEnv, type Serving, serve } from './support/cli-process.ts';
import { processesRunning } from './support/host-processes.ts';

let root: string;
let server: Serving | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-shutdown-'));
});
afterEach(() => {
  if (server?.process.exitCode === null) server.process.kill('SIGKILL');
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

/** The shells' directories inside the test's own dir, never the user's default workspace root. */
function workspaceFlags(): string[] {
  const workspace = join(root, 'workspaces');
  mkdirSync(workspace, { recursive: true });
  return ['--workspace', workspace];
}

/** A process that exists and is not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('SIGTERM', { timeout: 120_000 }, () => {
  it('answers in-flight calls, ends every process tree and exits 0', async () => {
    server = await serve(['--data-dir', join(root, 'data'), ...workspaceFlags()], cleanEnv());
    const { origin } = server;
    const token = readFileSync(join(root, 'data', 'admin-token'), 'utf8').trim();
    const client = new JumpseatClient({ url: origin, token });

    // An idle shell with a background job (bash announces the job first: "[1] PID").
    // Pids a sandboxed shell prints are its namespace's: its jobs are found from the host by
    // their command lines, a duration each.
    await client.bash('sd-idle', 'sleep 1001 &');
    const backgroundJob = await until(() => processesRunning('sleep', '1001')[0]);
    // A shell in the middle of an HTTP call, with a child of its own.
    const httpCall = fetch(`${origin}/api/agents/sd-http/bash`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'sleep 1002 & wait' }),
    });
    const httpChild = await until(() => processesRunning('sleep', '1002')[0]);
    // A shell in the middle of an MCP call.
    const mcp = new Client({ name: 'shutdown-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
        requestInit: {
          headers: { authorization: `Bearer ${token}`, 'x-jumpseat-agent': 'sd-mcp' },
        },
      }),
    );
    const mcpCall = mcp.callTool({ name: 'bash', arguments: { command: 'sleep 1000' } });
    const shells = await until(async () => {
      const sessions = await client.sessions();
      const busy = sessions.filter((s) => s.state === 'running');
      return busy.length === 2 ? sessions : undefined;
    });
    const shellPids = shells.map((s) => s.pid ?? 0);
    expect(shellPids).toHaveLength(3);
    const pids = [...shellPids, backgroundJob ?? 0, httpChild];
    expect(pids.every(running)).toBe(true);

    server.process.kill('SIGTERM');

    const httpReply = await httpCall;
    expect(httpReply.status).toBe(503);
    expect(await httpReply.json()).toEqual({
      error: {
        code: 'SHUTTING_DOWN',
        message: 'jumpseat is shutting down; the call was cancelled',
      },
    });
    expect(await mcpCall).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'jumpseat is shutting down; the call was cancelled' }],
    });
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toBe('');
    expect(pids.filter(running)).toEqual([]);
    await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
    await mcp.close();
  });

  it('ends 60 live shells, answers every call in flight 503 and records each shell closed', async () => {
    const data = join(root, 'data');
    // No network: 60 slirp4netns are not what this test is about.
    const flags = ['--data-dir', data, '--network', 'off', ...workspaceFlags()];
    server = await serve(flags, cleanEnv());
    const { origin } = server;
    const token = readFileSync(join(data, 'admin-token'), 'utf8').trim();
    const client = new JumpseatClient({ url: origin, token });
    const SHELLS = 60;
    const BUSY = 20;
    const agents = Array.from({ length: SHELLS }, (_, i) => `many-${i}`);
    // Started a few at a time: the point is how many are alive at the stop, not a start rush.
    for (let i = 0; i < SHELLS; i += 10) {
      await Promise.all(agents.slice(i, i + 10).map((agent) => client.bash(agent, 'true')));
    }
    const inFlight = agents.slice(0, BUSY).map((agent) =>
      fetch(`${origin}/api/agents/${agent}/bash`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ command: 'sleep 1003' }),
      }),
    );
    await until(async () => {
      const busy = (await client.sessions()).filter((s) => s.state === 'running');
      return busy.length === BUSY ? true : undefined;
    });
    const before = await client.sessions();
    expect(before.filter((s) => s.state !== 'exited')).toHaveLength(SHELLS);
    const pids = before.map((s) => s.pid ?? 0);
    expect(pids.every(running)).toBe(true);
    // Where this server could make cgroups (as root), one or more per shell.
    const groups = cgroupsOf(data);
    if (process.getuid?.() === 0) expect(groups.length).toBeGreaterThanOrEqual(SHELLS);

    const stoppedAt = Date.now();
    server.process.kill('SIGTERM');
    const replies = await Promise.all(inFlight);
    expect(replies.map((reply) => reply.status)).toEqual(Array(BUSY).fill(503));
    for (const reply of replies) {
      expect(((await reply.json()) as { error: { code: string } }).error.code).toBe(
        'SHUTTING_DOWN',
      );
    }
    expect(await server.exited).toBe(0);
    const exitedAt = Date.now();
    expect(server.stderr()).toBe('');
    expect(pids.filter(running)).toEqual([]);
    // The stop removed its shells' groups as their killed processes left, not the next start.
    expect(cgroupsOf(data)).toEqual([]);

    // The next run on the same data dir marks whatever the stop left unrecorded as
    // `server_stopped`: every shell must already be `closed`, ended at the stop.
    server = await serve(flags, cleanEnv());
    const again = new JumpseatClient({ url: server.origin, token });
    const all = (await again.sessions('all')).filter((s) => s.agent?.startsWith('many-'));
    expect(all).toHaveLength(SHELLS);
    expect(all.filter((s) => s.ending?.kind !== 'closed')).toEqual([]);
    expect(all.filter((s) => Date.parse(s.endedAt ?? '') < stoppedAt)).toEqual([]);
    // The stop's own time, one for all: recorded as the stop began, not as each shell's end
    // came round (a stop that gives up past its grace must leave nothing unfinished).
    expect(new Set(all.map((s) => s.endedAt)).size).toBe(1);
    expect(Date.parse(all[0]?.endedAt ?? '')).toBeLessThanOrEqual(exitedAt);
  });
});
