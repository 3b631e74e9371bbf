/**
 * Whether bubblewrap works on this machine, for the suites that attack the sandbox: they say
 * so in one line and do not run where it does not, except under CI=true, where that fails
 * the run (CI installs bubblewrap: a green run must have tried every escape).
 */
import { findBwrap, probeBwrap } from '../../src/launch/choose-launcher.ts';

function why(): string | null {
  const bwrap = findBwrap(process.env);
  if (bwrap === null) return 'bubblewrap (bwrap) is not installed (apt-get install -y bubblewrap)';
  const failure = probeBwrap(bwrap, 'on');
  return failure === null ? null : `bubblewrap cannot run here: ${failure}`;
}

const reason = why();
if (reason !== null) {
  if (process.env.CI === 'true' || process.env.CI === '1') {
    throw new Error(`sandbox tests: ${reason}; CI=true, so this fails the run`);
  }
  process.stdout.write(`sandbox tests: NOT RUN — ${reason}\n`);
}

/** True where the sandbox suites run. */
export const SANDBOX_WORKS = reason === null;
