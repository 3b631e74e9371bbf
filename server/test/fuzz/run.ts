/**
 * `npm run fuzz -- --seed N --cases M`: a longer fuzz of the bash engine than the one in
 * `npm test`, on a fresh engine. Prints the seed, and the first failing case in full.
 */
import { parseArgs } from 'node:util';
import { startEngine } from '../support/engine.ts';
import { runFuzz } from './shell-fuzz.ts';

const { values } = parseArgs({
  options: { seed: { type: 'string' }, cases: { type: 'string', default: '3000' } },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const cases = Number(values.cases);
if (!Number.isInteger(seed) || !Number.isInteger(cases) || cases < 1) {
  console.error('usage: npm run fuzz -- [--seed N] [--cases M]  (integers; M at least 1)');
  process.exit(2);
}
console.log(`shell fuzz: seed ${seed}, ${cases} cases`);
const engine = startEngine({ flags: ['--timeout-ms', '10000'] });
const started = Date.now();
try {
  const failure = await runFuzz(engine, seed, cases);
  if (failure) {
    console.error(
      `FAILED at case ${failure.index} (${failure.fuzzCase.category}): ${failure.problem}`,
    );
    console.error(JSON.stringify(failure.fuzzCase, null, 2));
    process.exitCode = 1;
  } else {
    console.log(`all ${cases} cases held in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
} finally {
  await engine.close();
}
