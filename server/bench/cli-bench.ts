/**
 * `jumpseat exec` round trip: the CLI of the installed package (this checkout packed and
 * installed into an empty folder, then `node node_modules/jumpseat/bin/jumpseat.js exec …`, the
 * bin path the README gives for per-call use), one trivial call, against a bare
 * `node -e "fetch(…)"` of the same server, in the same run. Targets: at most 0.4 s on this
 * machine (issue 16), and at most 2× the bare fetch (issue 25: the CLI loads only what `exec`
 * needs, not the server's modules).
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { installPacked } from '../test/support/packed-install.ts';
import { median, report, type Server, timings } from './bench-server.ts';

const RUNS = 15;
/** Issue 16's target for one `jumpseat exec` round trip, in ms. */
const EXEC_TARGET_MS = 400;
/** Issue 25's target: `jumpseat exec` costs at most this many bare fetches of the same call. */
const EXEC_VS_FETCH_TARGET = 2;

function run(args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env }, (error) => (error ? reject(error) : resolve()));
  });
}

export async function cliBenchmarks(server: Server): Promise<boolean[]> {
  console.log('(packing and installing jumpseat for the CLI figures: about a minute)');
  const installed = await installPacked();
  try {
    return await timeInstalledCli(
      server,
      join(installed.app, 'node_modules', 'jumpseat', 'bin', 'jumpseat.js'),
    );
  } finally {
    rmSync(installed.work, { recursive: true, force: true });
  }
}

async function timeInstalledCli(server: Server, bin: string): Promise<boolean[]> {
  const env = { ...process.env, JUMPSEAT_URL: server.url, JUMPSEAT_TOKEN: server.token };
  const exec = [bin, 'exec', '--agent', 'bench-cli', '--', 'true'];
  await run(exec, env); // the shell starts outside the timing
  const execTimes = await timings(RUNS, () => run(exec, env));
  const fetchScript = `await fetch(${JSON.stringify(`${server.url}/api/agents/bench-cli/bash`)}, { method: 'POST', headers: { authorization: 'Bearer ${server.token}', 'content-type': 'application/json' }, body: '{"command":"true"}' }).then((r) => r.text())`;
  const bareTimes = await timings(RUNS, () => run(['--input-type=module', '-e', fetchScript], env));
  const execMs = median(execTimes);
  const bareMs = median(bareTimes);
  return [
    report(
      'jumpseat exec round trip vs the 0.4 s target',
      execMs / EXEC_TARGET_MS,
      1,
      `(median ${execMs.toFixed(0)} ms; a bare node fetch of the same call ${bareMs.toFixed(0)} ms)`,
    ),
    report(
      'jumpseat exec round trip vs a bare node fetch of the same call',
      execMs / bareMs,
      EXEC_VS_FETCH_TARGET,
      `(median ${execMs.toFixed(0)} ms against ${bareMs.toFixed(0)} ms)`,
    ),
  ];
}
