/**
 * The server under soak: the real jumpseat in a child process on loopback (so its RSS is its
 * own), with a data dir the soak chooses (a small tmpfs for disk faults), and the few HTTP
 * helpers the phases use.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface SoakServer {
  readonly url: string;
  readonly token: string;
  readonly child: ChildProcess;
  /** What the server wrote on stderr (its storage warnings). */
  readonly stderr: string[];
}

export async function startSoakServer(
  dataDir: string,
  workspace: string,
  flags: readonly string[],
): Promise<SoakServer> {
  const token = `soak-token-${process.pid}-0123456789abcdef`;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      MAIN,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--workspace',
      workspace,
      ...flags,
    ],
    {
      cwd: REPO,
      env: { ...process.env, JUMPSEAT_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stderr: string[] = [];
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) =>
    stderr.push(line),
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const match = line.match(/^jumpseat listening on (http:\/\/\S+?)\/?$/);
    if (match?.[1]) return { url: match[1], token, child, stderr };
  }
  throw new Error(`the server exited before printing its address: ${stderr.join('\n')}`);
}

export async function stopSoakServer(server: SoakServer): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

export function rssMiB(server: SoakServer): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? 0) / 1024;
}

export async function request(
  server: SoakServer,
  path: string,
  init: RequestInit & { token?: string | null } = {},
): Promise<Response> {
  const { token = server.token, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  return fetch(`${server.url}${path}`, { ...rest, headers });
}

export async function getJson<T>(server: SoakServer, path: string): Promise<T> {
  const response = await request(server, path);
  if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

/** One tool call; the status and output text, or the error that stopped it. */
export async function toolCall(
  server: SoakServer,
  agent: string,
  command: string,
): Promise<{ status: number; output: string }> {
  const response = await request(server, `/api/agents/${agent}/bash`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ command }),
  });
  const body = (await response.json()) as { output?: string };
  return { status: response.status, output: body.output ?? '' };
}

/** Runs `count` tasks, at most `concurrency` at once (bounded). */
export async function inParallel(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
