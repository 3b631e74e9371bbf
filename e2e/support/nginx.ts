/**
 * Debian's nginx in front of a jumpseat server, as a deployer runs it: started by the test as
 * its own process (`daemon off`) on free loopback ports, with its configuration, pid, logs and
 * temp files in a directory of the test's, and ended by its pid. Under CI=true a missing nginx
 * fails the spec (.ci/run installs it).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopChild } from '../../playwright/src/worker-server.ts';

/** nginx starts in milliseconds; a loaded machine gets room. */
const START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;
const POLL_MS = 50;
/** Where Debian puts it; root's PATH has /usr/sbin, a user's may not. */
const NGINX_PATHS = ['/usr/sbin/nginx', '/usr/bin/nginx'];

export function findNginx(): string | undefined {
  const onPath = NGINX_PATHS.find((path) => existsSync(path));
  if (onPath !== undefined) return onPath;
  try {
    return execFileSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface NginxProcess {
  readonly child: ChildProcess;
  /** The error log, for a failure's message. */
  errors(): string;
}

/** Starts nginx with `httpBlock` as the body of its `http {}`; resolves once `ports` answer. */
export async function startNginx(
  nginx: string,
  dir: string,
  httpBlock: string,
  ports: readonly number[],
): Promise<NginxProcess> {
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    mkdirSync(join(dir, temp), { recursive: true });
  }
  const errorLog = join(dir, 'error.log');
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    [
      'worker_processes 1;',
      `error_log ${errorLog} warn;`,
      `pid ${join(dir, 'nginx.pid')};`,
      'events { worker_connections 128; }',
      'http {',
      `  access_log ${join(dir, 'access.log')};`,
      ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (temp) => `  ${temp === 'body' ? 'client_body' : temp}_temp_path ${join(dir, temp)};`,
      ),
      httpBlock,
      '}',
      '',
    ].join('\n'),
  );
  // -e: the log of start-up itself, before the configuration names one.
  const child = spawn(nginx, ['-p', dir, '-e', errorLog, '-c', conf, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const errors = (): string =>
    `${stderr}${existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : ''}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (const port of ports) {
    while (!(await answers(port))) {
      if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${errors()}`);
      if (Date.now() > deadline) {
        await stopNginx({ child, errors });
        throw new Error(`nginx did not listen on ${port}: ${errors()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  return { child, errors };
}

async function answers(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM (nginx's fast stop: open WebSockets must not hold it) to its pid; SIGKILL after a grace. */
export function stopNginx({ child }: NginxProcess): Promise<void> {
  return stopChild(child, STOP_GRACE_MS);
}
