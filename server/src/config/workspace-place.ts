/**
 * The workspace root and the data dir must not hold one another. Inside the data dir, which
 * every sandbox hides, the workspaces cannot be shown: every sandboxed shell failed to start
 * (exit 127) with no word why. Holding the data dir, a workspace shown to a shell would show
 * the server's tokens and history under it (`--shared-workspace` shows the whole root).
 */
import { ConfigError } from './config-error.ts';
import { inside, real } from './readable-dirs.ts';

export function checkWorkspacePlace(dataDir: string, workspace: string): void {
  const data = real(dataDir);
  const root = real(workspace);
  if (inside(root, data)) {
    throw new ConfigError(
      `--workspace: ${workspace} is inside the data dir ${dataDir}, which every shell's sandbox hides; put the workspaces beside the data dir`,
    );
  }
  if (inside(data, root)) {
    throw new ConfigError(
      `--data-dir: ${dataDir} is inside the workspace root ${workspace}, where agents' shells could reach the server's tokens; put the data dir beside the workspaces`,
    );
  }
}
