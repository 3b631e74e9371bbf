#!/usr/bin/env node
// `npm test`: every step runs, even when an earlier one fails, so that one flaky suite never
// hides the results of the others (the browser suite ran last and was skipped by any failure
// before it). Prints a line per step, then one line for the whole run, and exits non-zero if
// any step failed. A step that needs an earlier one (the browser suite needs the web build)
// still runs, and its own failure says why.
import { spawn } from 'node:child_process';

/** The steps, in order: what the README calls the test command. */
const STEPS = [
  ['type check', 'tsc', ['-b']],
  ['lint', 'biome', ['check', '.']],
  ['web build', 'vite', ['build']],
  ['unit and server suites', 'vitest', ['run']],
  ['browser suite', 'playwright', ['test', '--pass-with-no-tests']],
];

/**
 * Run beside the steps from the start, its output kept until it ends: suites that mostly
 * wait (a call of minutes), whose minutes would otherwise be added to the run's.
 */
const BESIDE = ['long calls', 'vitest', ['run', '--config', 'vitest.long.config.ts']];

/**
 * Runs one step to its end. Its output goes to ours as it comes, or, when `output` is an
 * array, is kept there (a step beside others would interleave with them).
 */
function runStep([name, command, args], output) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npx', ['--no-install', command, ...args], {
      stdio: output === undefined ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    let ended = false;
    const end = (ok, status) => {
      if (ended) return;
      ended = true;
      resolve({ name, ok, status, seconds: ((Date.now() - started) / 1000).toFixed(1) });
    };
    child.on('error', (error) => end(false, `could not start (${error.message})`));
    child.on('close', (code, signal) =>
      end(code === 0, signal !== null ? `killed by ${signal}` : `exit code ${code}`),
    );
  });
}

console.log(`\n== ${BESIDE[0]}: ${BESIDE[1]} ${BESIDE[2].join(' ')} (beside the steps below)`);
const besideOutput = [];
const beside = runStep(BESIDE, besideOutput);

const results = [];
for (const step of STEPS) {
  const [name, command, args] = step;
  console.log(`\n== ${name}: ${command} ${args.join(' ')}`);
  results.push(await runStep(step));
}

console.log(`\n== ${BESIDE[0]}: its output`);
const besideResult = await beside;
process.stdout.write(Buffer.concat(besideOutput));
results.push(besideResult);

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
