/**
 * Finds PowerShell 7 the way the server, the tests and `.ci/run` agree on: an explicit path
 * (`--pwsh` / `JUMPSEAT_PWSH`), else `pwsh` on PATH, else the .NET global tool location
 * `~/.dotnet/tools/pwsh` (where `dotnet tool install --global PowerShell` puts it, which is
 * often not on PATH for a service).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findOnPath, isExecutableFile } from './executable-path.ts';

export const PWSH_NAME = 'pwsh';
/** Where `dotnet tool install --global` puts tools, relative to the home directory. */
export const DOTNET_TOOLS_DIR = join('.dotnet', 'tools');

/** What to do when pwsh is not found, for messages a user reads. */
export const PWSH_MISSING_HINT =
  'PowerShell 7 was not found: put pwsh on PATH, install it with ' +
  '`dotnet tool install --global PowerShell`, or set JUMPSEAT_PWSH';

/** The pwsh to run: `override` when given, else the first found on PATH or in the tools dir. */
export function locatePwsh(override: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (override !== undefined) return isExecutableFile(override) ? override : null;
  const onPath = findOnPath(PWSH_NAME, env.PATH);
  if (onPath !== null) return onPath;
  const tool = join(env.HOME || homedir(), DOTNET_TOOLS_DIR, PWSH_NAME);
  return isExecutableFile(tool) ? tool : null;
}
