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

/** A failed test as vitest (`FAIL  file > name`) or Playwright's list reporter (`✘ …`) names it. */
const FAILED_TEST = /^\s*(?:FAIL\s+\S|✘\s)/;
const COLOUR = /\x1b\[[0-9;]*m/g;

/**
 * Where a runner's closing report explains one failure: Playwright's `  1) [e2e] › …` and
 * vitest's `FAIL  file > name` followed by its error.
 */
const FAILURE_HEADING = /^\s*(?:\d+\) \[|FAIL\s+\S)/;
/** Where a runner's report of failures ends: vitest's rule and totals, Playwright's counts. */
const DETAILS_END = /^\s*(?:⎯+\[\d+\/\d+\]⎯|Test Files\s|\d+ (?:failed|flaky|passed|skipped)\b)/;
/** Lines of each explanation repeated at the end of the run: the error and where it was thrown. */
const DETAIL_LINES = 30;

/** The names of the tests a step's output reports as failed, in order, once each. */
function failedTests(lines) {
  const names = new Set();
  for (const line of lines) if (FAILED_TEST.test(line)) names.add(line.trim());
  return [...names];
}

/**
 * The first lines of each failure's explanation in a runner's report, so that the end of a
 * long log (all a CI summary may keep) says why a test failed, not only which.
 */
function failureDetails(lines) {
  const details = [];
  for (let i = 0; i < lines.length; i += 1) {
    if (!FAILURE_HEADING.test(lines[i])) continue;
    const block = [lines[i]];
    for (let j = i + 1; j < lines.length && block.length < DETAIL_LINES; j += 1) {
      if (FAILURE_HEADING.test(lines[j]) || DETAILS_END.test(lines[j])) break;
      block.push(lines[j]);
    }
    // Vitest names a failed test twice (progress, then report): keep the one that explains.
    if (block.slice(1).some((line) => line.trim() !== '')) details.push(block.join('\n').trimEnd());
  }
  return details;
}

/**
 * Runs one step to its end. Its output goes to ours as it comes, or, when `output` is given,
 * is only kept there (a step beside others would interleave with them). Either way it is
 * kept, for the names of its failed tests at the end of the run.
 */
function runStep([name, command, args], output) {
  const started = Date.now();
  const echo = output === undefined;
  const kept = output ?? [];
  return new Promise((resolve) => {
    const child = spawn('npx', ['--no-install', command, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Read through a pipe, the runners would drop the colours a person at a terminal sees.
      env: process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env,
    });
    for (const [stream, ours] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      stream.on('data', (chunk) => {
        kept.push(chunk);
        if (echo) ours.write(chunk);
      });
    }
    let ended = false;
    const end = (ok, status) => {
      if (ended) return;
      ended = true;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const lines = ok
        ? []
        : Buffer.concat(kept)
            .toString('utf8')
            .split('\n')
            .map((line) => line.replace(COLOUR, '').trimEnd());
      resolve({
        name,
        ok,
        status,
        seconds,
        failures: failedTests(lines),
        details: failureDetails(lines),
      });
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
// Last, so that the end of a long log names what failed (a CI shows the end first).
for (const { name, failures, details } of failed) {
  console.log(`\n== failed tests: ${name}`);
  for (const failure of failures) console.log(failure);
  if (failures.length === 0) console.log('(no test named as failed; see the step output above)');
  for (const detail of details) console.log(`\n${detail}`);
}
process.exitCode = failed.length === 0 ? 0 : 1;
