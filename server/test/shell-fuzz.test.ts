/**
 * The bounded fuzz of the bash engine (see fuzz/shell-fuzz.ts). It prints its seed; a
 * failing seed reruns alone with `JUMPSEAT_FUZZ_SEED=N npx vitest run server/test/shell-fuzz.test.ts`
 * or `npm run fuzz -- --seed N --cases M`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runFuzz } from './fuzz/shell-fuzz.ts';
import { startEngine, type TestEngine } from './support/engine.ts';

const seed = Number(process.env.JUMPSEAT_FUZZ_SEED) || Math.floor(Math.random() * 2 ** 31);
/** Bounded for CI: about a minute on two busy cores. */
const CASES = Number(process.env.JUMPSEAT_FUZZ_CASES) || 150;

let engine: TestEngine;
beforeAll(() => {
  engine = startEngine({ flags: ['--timeout-ms', '10000'] });
});
afterAll(async () => {
  await engine.close();
});

it(`holds for ${CASES} generated commands`, async () => {
  console.log(`shell fuzz: seed ${seed}, ${CASES} cases (rerun: JUMPSEAT_FUZZ_SEED=${seed})`);
  const failure = await runFuzz(engine, seed, CASES);
  expect(failure, `seed ${seed}`).toBeNull();
}, 170_000);
