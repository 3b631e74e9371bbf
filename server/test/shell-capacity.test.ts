/**
 * A server's shells are bounded by its open-file limit: the banner says how many fit, and past
 * them a new shell is refused with 503 SHELL_CAPACITY and the reason, while the server keeps
 * answering (health, the shells it runs) instead of failing with EMFILE somewhere.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DESCRIPTORS_PER_SHELL, RESERVED_DESCRIPTORS } from '../src/ops/descriptor-limit.ts';
import { cleanEnv, type Serving, serve } from './support/cli-process.ts';

const CAPACITY = 2;
/** Soft and hard limit alike: there is nothing to raise, and exactly CAPACITY shells fit. */
const NOFILE = RESERVED_DESCRIPTORS + CAPACITY * DESCRIPTORS_PER_SHELL;

let root: string;
let server: Serving | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-capacity-'));
});
afterEach(async () => {
  if (server?.process.exitCode === null) {
    server.process.kill('SIGTERM');
    await server.exited;
  }
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

async function call(origin: string, token: string, agent: string, command: string) {
  const reply = await fetch(`${origin}/api/agents/${agent}/bash`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command }),
  });
  return { status: reply.status, body: (await reply.json()) as unknown };
}

describe('shell capacity', { timeout: 120_000 }, () => {
  it('refuses the shell past the open-file limit with 503 and keeps serving', async () => {
    const data = join(root, 'data');
    server = await serve(['--data-dir', data, '--network', 'off'], cleanEnv(), {
      fromSource: true,
      // tsx compiles the server at start: slow on a busy machine.
      startDeadlineMs: 60_000,
      runAs: ['prlimit', `--nofile=${NOFILE}:${NOFILE}`, '--'],
    });
    // The banner's later lines follow the one `serve` waits for.
    while (!server.stdout().includes('capacity:') && server.process.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(server.stdout()).toContain(
      `capacity: ${CAPACITY} shells (open files: ${NOFILE}; ${DESCRIPTORS_PER_SHELL} per shell, ${RESERVED_DESCRIPTORS} for the server)\n`,
    );
    const { origin } = server;
    const token = readFileSync(join(data, 'admin-token'), 'utf8').trim();

    for (let i = 0; i < CAPACITY; i++) {
      expect(await call(origin, token, `cap-${i}`, 'echo ok')).toEqual({
        status: 200,
        body: { output: 'ok' },
      });
    }
    expect(await call(origin, token, 'cap-over', 'echo ok')).toEqual({
      status: 503,
      body: {
        error: {
          code: 'SHELL_CAPACITY',
          message: `this server runs ${CAPACITY} shells, as many as its open-file limit allows; end a shell (or raise the server's RLIMIT_NOFILE) and try again`,
        },
      },
    });
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    expect(await call(origin, token, 'cap-0', 'echo still here')).toEqual({
      status: 200,
      body: { output: 'still here' },
    });
    expect(server.stderr()).toBe('');
  });

  it('raises the soft open-file limit to the hard one at start and counts shells from it', async () => {
    const hard = NOFILE + 10 * DESCRIPTORS_PER_SHELL;
    server = await serve(['--data-dir', join(root, 'data'), '--network', 'off'], cleanEnv(), {
      fromSource: true,
      // tsx compiles the server at start: slow on a busy machine.
      startDeadlineMs: 60_000,
      runAs: ['prlimit', `--nofile=${NOFILE}:${hard}`, '--'],
    });
    while (!server.stdout().includes('capacity:') && server.process.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(server.stdout()).toContain(
      `capacity: ${CAPACITY + 10} shells (open files: ${hard}; ${DESCRIPTORS_PER_SHELL} per shell, ${RESERVED_DESCRIPTORS} for the server)\n`,
    );
    const limits = readFileSync(`/proc/${server.process.pid}/limits`, 'latin1');
    expect(/^Max open files\s+(\d+)\s+(\d+)/m.exec(limits)?.slice(1)).toEqual([
      String(hard),
      String(hard),
    ]);
  });
});
