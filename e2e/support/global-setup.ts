/**
 * Starts one real jumpseat server for the whole e2e run (`--port 0`, a fresh data dir and
 * workspace, a known admin token) and tells the workers where it is through the environment.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Start-up is about 2 s; a loaded CI box can take several times that. */
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const LISTENING = /^jumpseat listening on (http:\/\/\S+?)\/?$/m;

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'jumpseat-e2e-'));
  const dataDir = join(dir, 'data');
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const token = `js_e2e_${randomBytes(18).toString('hex')}`;
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
      dataDir,
      '--workspace',
      workspace,
    ],
    { env: { ...process.env, JUMPSEAT_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const origin = await listeningOrigin(child);
  process.env.JUMPSEAT_E2E_URL = origin;
  process.env.JUMPSEAT_E2E_TOKEN = token;
  process.env.JUMPSEAT_E2E_WORKSPACE = workspace;
  return async () => {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  };
}

function listeningOrigin(child: ChildProcess): Promise<string> {
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
        resolve(match[1]);
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

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
