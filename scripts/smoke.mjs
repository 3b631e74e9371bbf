#!/usr/bin/env node
// A smoke run of the compiled server under whichever Node runs this script (.ci/node-versions
// runs it on Node 24): start on a free port in a fresh data dir, one bash call, a graceful
// stop by the child's pid. Prints one line per step; exits non-zero on the first failure.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A cold start on a loaded machine; a call that starts its shell. */
const START_TIMEOUT_MS = 60_000;
const CALL_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

const root = mkdtempSync(join(tmpdir(), 'jumpseat-smoke-'));
// Beside the data dir: a workspace root that holds it is refused.
const workspace = join(root, 'workspace');
mkdirSync(workspace);
const token = `js_smoke_${process.pid}_${Date.now()}`;
const server = spawn(
  process.execPath,
  [
    'dist/server/src/main.js',
    ...['--port', '0', '--data-dir', join(root, 'data'), '--workspace', workspace],
  ],
  { env: { ...process.env, JUMPSEAT_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] },
);
const fail = (message) => {
  console.error(`smoke on Node ${process.version}: FAILED: ${message}`);
  if (server.exitCode === null) server.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
  process.exit(1);
};
const exited = new Promise((resolve) => server.once('exit', (code) => resolve(code)));
const started = Date.now();
let listening = false;
const url = await new Promise((resolve) => {
  let out = '';
  const timer = setTimeout(() => fail(`no banner in ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
  server.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk;
    const match = /^jumpseat listening on (\S+)$/m.exec(out);
    if (match) {
      clearTimeout(timer);
      listening = true;
      resolve(match[1]);
    }
  });
  exited.then((code) => listening || fail(`server exited ${code} before listening`));
});
console.log(
  `smoke on Node ${process.version}: listening on ${url} after ${Date.now() - started} ms`,
);
const response = await fetch(`${url}api/agents/smoke/bash`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ command: 'echo smoke-$((6*7)) on "$BASH_VERSION"' }),
  signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
}).catch((error) => fail(`call failed: ${error.message}`));
const body = await response.json();
if (response.status !== 200 || !/^smoke-42 on \d/.test(body.output)) {
  fail(`call answered ${response.status} ${JSON.stringify(body)}`);
}
console.log(`smoke on Node ${process.version}: bash answered ${JSON.stringify(body.output)}`);
server.kill('SIGTERM');
const code = await Promise.race([
  exited,
  new Promise((resolve) => setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS)),
]);
if (code !== 0) fail(`stop ended with ${code}`);
rmSync(root, { recursive: true, force: true });
console.log(`smoke on Node ${process.version}: stopped cleanly`);
