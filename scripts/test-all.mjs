#!/usr/bin/env node
// `npm test`: every step runs, even when an earlier one fails, so that one flaky suite never
// hides the results of the others (the browser suite ran last and was skipped by any failure
// before it). Prints a line per step, then one line for the whole run, and exits non-zero if
// any step failed. A step that needs an earlier one (the browser suite needs the web build)
// still runs, and its own failure says why.
import { spawnSync } from 'node:child_process';

/** The steps, in order: what the README calls the test command. */
const STEPS = [
  ['type check', 'tsc', ['-b']],
  ['lint', 'biome', ['check', '.']],
  ['web build', 'vite', ['build']],
  ['unit and server suites', 'vitest', ['run']],
  ['browser suite', 'playwright', ['test', '--pass-with-no-tests']],
];

const results = [];
for (const [name, command, args] of STEPS) {
  console.log(`\n== ${name}: ${command} ${args.join(' ')}`);
  const started = Date.now();
  const run = spawnSync('npx', ['--no-install', command, ...args], { stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const status =
    run.error !== undefined
      ? `could not start (${run.error.message})`
      : run.signal !== null
        ? `killed by ${run.signal}`
        : `exit code ${run.status}`;
  results.push({ name, ok: run.error === undefined && run.status === 0, status, seconds });
}

console.log('\n== summary');
for (const { name, ok, status, seconds } of results) {
  console.log(`${ok ? 'passed' : 'FAILED'}  ${name} (${status}, ${seconds} s)`);
}
const failed = results.filter((result) => !result.ok);
console.log(
  failed.length === 0
    ? `all ${results.length} steps passed`
    : `${failed.length} of ${results.length} steps failed: ${failed.map((r) => r.name).join(', ')}`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
