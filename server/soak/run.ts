/**
 * `npm run soak` (`-- --short` for the CI size): the soak and fault suite against a real
 * server on loopback; prints the figures, and exits 1 when a bound did not hold.
 */
import { FULL_SOAK, runSoak, SHORT_SOAK } from './soak.ts';
import { describeFigures, soakProblems } from './soak-figures.ts';

const size = process.argv.includes('--short') ? SHORT_SOAK : FULL_SOAK;
const figures = await runSoak(size, (line) => console.log(line));
for (const line of describeFigures(figures)) console.log(line);
const problems = soakProblems(figures);
for (const problem of problems) console.log(`BOUND MISSED: ${problem}`);
console.log(problems.length === 0 ? 'every bound held' : `${problems.length} bounds missed`);
process.exit(problems.length === 0 ? 0 : 1);
