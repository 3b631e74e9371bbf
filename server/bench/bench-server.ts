/**
 * What every benchmark needs: the real server started as a child process on loopback, a tool
 * call over HTTP, timings and their median, the server's memory, and the one report line
 * each figure prints (a ratio against a baseline measured in the same run).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { unmountMany } from '../src/launch/unmount.ts';

export interface Server {
  readonly url: string;
  readonly token: string;
  readonly child: ChildProcess;
  readonly root: string;
}

/** A server on a new data dir, or on `root` (the data dir of a server that ran before). */
export async function startServer(
  flags: readonly string[] = [],
  root = mkdtempSync(join(tmpdir(), 'jumpseat-bench-')),
): Promise<Server> {
  const token = 'bench-token-0123456789abcdef';
  // The shells' directories beside the run's data dir (a workspace root inside the data dir,
  // which every sandbox hides, is refused), never the user's default workspace root.
  const workspace = workspaceOf(root);
  mkdirSync(workspace, { recursive: true });
  const child = spawn(
    process.execPath,
    [
      ...['--import', 'tsx', 'server/src/main.ts', '--port', '0', '--data-dir', root],
      ...(flags.includes('--workspace') ? [] : ['--workspace', workspace]),
      ...flags,
    ],
    { env: { ...process.env, JUMPSEAT_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const match = line.match(/^jumpseat listening on (http:\/\/\S+?)\/?$/);
    if (match?.[1]) return { url: match[1], token, child, root };
  }
  throw new Error('the server exited before printing its address');
}

/** The workspace root of a run whose data dir is `root`. */
export function workspaceOf(root: string): string {
  return `${root}-workspaces`;
}

/**
 * Removes a run's data dir and its workspace root (once its server has stopped). A server that
 * gave up its stop leaves workspaces' file systems mounted there: they go first.
 */
export async function removeRun(root: string): Promise<void> {
  const workspaces = `${workspaceOf(root)}/`;
  const left = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((point) => point.startsWith(workspaces));
  await unmountMany(left);
  rmSync(root, { recursive: true, force: true });
  rmSync(workspaceOf(root), { recursive: true, force: true });
}

export async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  await removeRun(server.root);
}

export async function call(
  server: Server,
  agent: string,
  command: string,
  dialect = 'bash',
): Promise<string> {
  const response = await fetch(`${server.url}/api/agents/${agent}/${dialect}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command }),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { output: string }).output;
}

/** Tries at a new shell's first call: on a busy machine a start may miss its deadline. */
const START_ATTEMPTS = 3;

/** A new shell's first call, tried again when the shell could not start in time. */
export async function firstCall(server: Server, agent: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await call(server, agent, 'true');
      return;
    } catch (error) {
      if (attempt === START_ATTEMPTS) throw error;
    }
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export async function timed(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

export function spawnAndWait(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore' });
    child.on('exit', () => resolve());
    child.on('error', reject);
  });
}

/** Times `action` run `runs` times, one after another (ms). */
export async function timings(runs: number, action: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await timed(action));
  return times;
}

/**
 * Times two actions in alternating blocks of `block` runs each, `rounds` times: a figure and
 * its baseline then see the same moments of a machine whose speed wanders (a shared VM's
 * does, by 15% and more over a few seconds), where one block after the other would compare
 * a fast moment with a slow one. The two lists of times (ms), in the order given.
 */
export async function interleavedTimings(
  rounds: number,
  block: number,
  actions: readonly [() => Promise<unknown>, () => Promise<unknown>],
): Promise<[number[], number[]]> {
  const first: number[] = [];
  const second: number[] = [];
  for (let round = 0; round < rounds; round++) {
    first.push(...(await timings(block, actions[0])));
    second.push(...(await timings(block, actions[1])));
  }
  return [first, second];
}

export function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? 0);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Time for a server to settle (GC, lazy allocations) before a memory reading. */
const SETTLE_MS = 1500;

/** A server's RSS (KiB) once it had time to settle. */
export async function settledRssKiB(pid: number): Promise<number> {
  await sleep(SETTLE_MS);
  return rssKiB(pid);
}

export function report(name: string, ratio: number, target: number, detail: string): boolean {
  const ok = ratio <= target;
  console.log(
    `${name}: ratio ${ratio.toFixed(3)} (target <= ${target}) ${ok ? 'OK' : 'MISSED'}  ${detail}`,
  );
  return ok;
}
