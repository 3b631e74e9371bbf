/**
 * A real jumpseat server as a child process (`--port 0` on 127.0.0.1), for the run-wide server
 * of global-setup and for specs that need one of their own (a restart on the same data dir).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stopChild } from '../../playwright/src/worker-server.ts';

/** Start-up is about 2 s; a loaded CI box can take several times that. */
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const LISTENING = /^jumpseat listening on (http:\/\/\S+?)\/?$/m;

export interface ServerProcess {
  readonly origin: string;
  readonly child: ChildProcess;
}

export interface ServerOptions {
  readonly dataDir: string;
  readonly workspace?: string;
  /** The admin token, given as JUMPSEAT_TOKEN. */
  readonly token: string;
  /** More command-line flags (`--control-idle-ms 3000`). */
  readonly flags?: readonly string[];
}

/** Starts the server and resolves once it says where it listens. */
export function startServerProcess(options: ServerOptions): Promise<ServerProcess> {
  const workspaces = join(dirname(options.dataDir), 'workspaces');
  if (options.workspace === undefined) mkdirSync(workspaces, { recursive: true });
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'server/src/main.ts',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      options.dataDir,
      // One directory for every shell: specs let one agent's command stop another's loop
      // through a file there. Per-agent workspaces are tested in the server's own suites.
      // Without one, per-agent workspaces beside the data dir (in the spec's own scratch dir),
      // not the user's default root, where each run left workspaces and quota images behind.
      ...(options.workspace === undefined
        ? ['--workspace', workspaces]
        : ['--workspace', options.workspace, '--shared-workspace']),
      ...(options.flags ?? []),
    ],
    { env: { ...process.env, JUMPSEAT_TOKEN: options.token }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`jumpseat did not start within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = LISTENING.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve({ origin: match[1], child });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stderr.write(chunk);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`jumpseat exited (${code}) before listening:\n${output}`));
    });
  });
}

/** SIGTERM (the server closes its shells and history), SIGKILL if it does not end in time. */
export function stopServerProcess({ child }: ServerProcess): Promise<void> {
  return stopChild(child, STOP_GRACE_MS);
}
