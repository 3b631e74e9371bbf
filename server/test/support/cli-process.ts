/**
 * Runs the real `jumpseat` command (bin/jumpseat.js) as a child process: `serve` kept
 * running until the test ends it, the client commands run to completion.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../../../bin/jumpseat.js', import.meta.url));
/** Starting node with tsx and the engine takes about a second; leave room for slow machines. */
const START_DEADLINE_MS = 20_000;

/** Our environment without any JUMPSEAT_* setting, plus `extra`. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('JUMPSEAT_')),
  );
  return { ...env, ...extra };
}

export interface Finished {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function jumpseat(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: REPO, env }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ status, stdout, stderr });
    });
  });
}

export interface Serving {
  readonly process: ChildProcess;
  /** `http://127.0.0.1:PORT` without a trailing slash. */
  readonly origin: string;
  readonly exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/**
 * `jumpseat serve --port 0 …`; resolves once the banner names the port. `fromSource` runs
 * `server/src/main.ts` through tsx instead, for tests about the server rather than the
 * package (no compile step that a busy machine could stretch past the banner deadline).
 * `runAs` prefixes the command that starts node (e.g. setpriv, for an unprivileged server).
 */
export async function serve(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  {
    fromSource = false,
    user,
    startDeadlineMs = START_DEADLINE_MS,
    runAs = [],
  }: {
    fromSource?: boolean;
    /** How long the banner may take (ms): longer for a start that has more to do. */
    startDeadlineMs?: number;
    /** Runs the server as this user (the test must be root), its groups dropped. */
    user?: { readonly uid: number; readonly gid: number };
    /** A command that runs the server as another user (`setpriv --reuid=… --`). */
    runAs?: readonly string[];
  } = {},
): Promise<Serving> {
  const command = fromSource ? ['--import', 'tsx', 'server/src/main.ts'] : [BIN, 'serve'];
  const [file = process.execPath, ...before] = runAs.length ? [...runAs, process.execPath] : [];
  const child = spawn(file, [...before, ...command, '--port', '0', ...args], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
  });
  let stdout = '';
  let stderr = '';
  // A spawn that fails (the node binary not executable by `user`) is this start's error, not
  // an uncaught one of the whole run.
  let spawnError: Error | undefined;
  child.on('error', (error) => {
    spawnError = error;
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const deadline = Date.now() + startDeadlineMs;
  for (;;) {
    // 127.0.0.1 unless the test named an address (`--host`).
    const [, address, port] =
      /^jumpseat listening on http:\/\/([\d.]+):(\d+)\//m.exec(stdout) ?? [];
    if (address !== undefined && port !== undefined) {
      return {
        process: child,
        origin: `http://${address}:${port}`,
        exited,
        stdout: () => stdout,
        stderr: () => stderr,
      };
    }
    if (spawnError !== undefined) throw new Error(`serve could not start: ${spawnError.message}`);
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) {
      // Nobody gets this server to stop it: one left behind by a slow start ran on for 47 min.
      child.kill('SIGKILL');
      throw new Error(`no banner; stderr: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
