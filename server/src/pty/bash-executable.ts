/** Where the bash that shells run lives. */
import { findOnPath } from './executable-path.ts';

/**
 * The bash shells run, found once, for their `SHELL`: as `login` and `su -s` do, the variable
 * names the shell the session runs, so what starts "the user's shell" (`exec "$SHELL"`,
 * `script`, an editor's `:sh`) starts a bash, whatever the server's own `SHELL` says (a service
 * account's is often `/usr/sbin/nologin`).
 */
let bashExecutable: string | undefined;
export function bashPath(): string {
  bashExecutable ??= findOnPath('bash', process.env.PATH) ?? '/bin/bash';
  return bashExecutable;
}
