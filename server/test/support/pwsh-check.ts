/**
 * Vitest global set-up: says once, before any test runs, whether the pwsh suites will run.
 * Under CI=true a missing pwsh fails the run (`.ci/run` installs it); elsewhere the suites
 * are skipped and this one line says why, so a skip is never silent.
 */
import { locatePwsh, PWSH_MISSING_HINT } from '../../src/pty/pwsh-executable.ts';

export default function checkPwsh(): void {
  // Looked up as pwsh.ts does; that module is not imported here, as it pulls in the engine.
  if (locatePwsh(process.env.JUMPSEAT_PWSH || undefined, process.env) !== null) return;
  if (process.env.CI === 'true') {
    throw new Error(`CI=true and the pwsh tests cannot run: ${PWSH_MISSING_HINT}`);
  }
  console.log(`pwsh tests did not run: ${PWSH_MISSING_HINT}.`);
}
