/**
 * Finds PowerShell 7 the way the server, the tests and `.ci/run` agree on: an explicit path
 * (`--pwsh` / `JUMPSEAT_PWSH`), else `pwsh` on PATH, else the .NET global tool location
 * `~/.dotnet/tools/pwsh` (where `dotnet tool install --global PowerShell` puts it, which is
 * often not on PATH for a service).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';

export const PWSH_NAME = 'pwsh';
/** Where `dotnet tool install --global` puts tools, relative to the home directory. */
export const DOTNET_TOOLS_DIR = join('.dotnet', 'tools');

/** What to do when pwsh is not found, for messages a user reads. */
export const PWSH_MISSING_HINT =
  'PowerShell 7 was not found: put pwsh on PATH, install it with ' +
  '`dotnet tool install --global PowerShell`, or set JUMPSEAT_PWSH';

/** True when `path` is a regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The pwsh to run: `override` when given, else the first found on PATH or in the tools dir. */
export function locatePwsh(override: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (override !== undefined) return isExecutableFile(override) ? override : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    // An empty or relative PATH entry means the current directory: never trusted here.
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, PWSH_NAME);
    if (isExecutableFile(candidate)) return candidate;
  }
  const tool = join(env.HOME || homedir(), DOTNET_TOOLS_DIR, PWSH_NAME);
  return isExecutableFile(tool) ? tool : null;
}
