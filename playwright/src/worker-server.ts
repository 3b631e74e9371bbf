/**
 * The jumpseat server a Playwright worker owns: a child process on a free loopback port
 * (`--port 0`) with a temporary data dir and workspace and a generated admin token, stopped
 * (and its folder removed) when the worker ends. From a checkout it runs the TypeScript
 * sources; from an installed package, the compiled server beside this module.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Start-up takes about 2 s; a loaded box takes far longer (two workers' servers compiling
 * from source side by side on a busy 2-core machine took past 60 s). Within the fixture's
 * own 120 s.
 */
const START_TIMEOUT_MS = 100_000;
/** SIGTERM lets the server end its shells and close its history; past this, SIGKILL. */
const STOP_GRACE_MS = 10_000;
/** What the server said is kept for an error message, no more. */
const KEPT_OUTPUT_CHARS = 20_000;
const LISTENING = /^jumpseat listening on (http:\/\/\S+?)\/?$/m;

export interface WorkerServer {
  readonly url: string;
  readonly token: string;
  stop(): Promise<void>;
}

/** How to run the server: `node --import tsx server/src/main.ts` from a checkout. */
function serverCommand(): { args: string[]; cwd: string } {
  const here = import.meta.url;
  const fromSource = here.endsWith('.ts');
  // playwright/src/ in a checkout, dist/playwright/src/ in the package.
  const root = fileURLToPath(new URL(fromSource ? '../../' : '../../../', here));
  return fromSource
    ? { args: ['--import', 'tsx', join(root, 'server/src/main.ts')], cwd: root }
    : { args: [join(root, 'dist/server/src/main.js')], cwd: root };
}

/** The environment without the caller's JUMPSEAT_* settings: the worker's server is its own. */
function serverEnv(token: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('JUMPSEAT_')),
  );
  return { ...env, JUMPSEAT_TOKEN: token };
}

export async function startWorkerServer(flags: readonly string[]): Promise<WorkerServer> {
  const dir = mkdtempSync(join(tmpdir(), 'jumpseat-playwright-'));
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace);
  const token = `js_pw_${randomBytes(18).toString('hex')}`;
  const { args, cwd } = serverCommand();
  const child = spawn(
    process.execPath,
    [
      ...args,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      '--workspace',
      workspace,
      ...flags,
    ],
    { cwd, env: serverEnv(token), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  let url: string;
  try {
    url = await listening(child);
  } catch (error) {
    await stopChild(child);
    remove();
    throw error;
  }
  return {
    url,
    token,
    async stop() {
      await stopChild(child);
      remove();
    },
  };
}

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`jumpseat did not start within ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const read = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-KEPT_OUTPUT_CHARS);
      const match = LISTENING.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`jumpseat exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

/** SIGTERM to the child, SIGKILL if it has not ended after `graceMs`; resolves at its exit. */
export function stopChild(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
