/**
 * Real PowerShell 7 for the pwsh suites, found as the server finds it: JUMPSEAT_PWSH, else
 * pwsh on PATH, else ~/.dotnet/tools/pwsh. When it is missing the suites are skipped, and
 * the global set-up (pwsh-check.ts) says so in one line, or fails the run under CI=true.
 */
import { locatePwsh } from '../../src/pty/pwsh-executable.ts';
import { startEngine, type TestEngine, type TestEngineOptions } from './engine.ts';

export const PWSH = locatePwsh(process.env.JUMPSEAT_PWSH || undefined, process.env);

/** An engine whose `call` runs pwsh by default, with the pwsh that was found. */
export function startPwshEngine(options: TestEngineOptions = {}): TestEngine {
  if (PWSH === null) throw new Error('pwsh was not found (see pwsh-check.ts)');
  return startEngine({
    ...options,
    flags: ['--pwsh', PWSH, ...(options.flags ?? [])],
    dialect: 'pwsh',
  });
}
