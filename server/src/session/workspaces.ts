/**
 * Where each shell works: an agent in `<workspace>/<agent>`, a person in
 * `<workspace>/_people/<token id>` (agent ids cannot start with `_`, so the two never meet),
 * each made on first use and private to the server's user; with `--shared-workspace`
 * every shell works in `<workspace>` itself.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { JUMPSEAT_ERR_SHELL_UNAVAILABLE, JumpseatError } from '../errors.ts';

/** The folder of people's own directories inside the workspace root. */
export const PEOPLE_DIR = '_people';
/** Only the server's user (and so the shells it starts) may enter a workspace. */
const WORKSPACE_MODE = 0o700;

export class Workspaces {
  constructor(
    readonly root: string,
    readonly shared: boolean,
  ) {}

  /** The agent's directory (the id is validated by the API: `^[A-Za-z0-9][A-Za-z0-9._-]*$`). */
  forAgent(agent: string): string {
    return this.made(this.shared ? this.root : join(this.root, agent));
  }

  /** A person's own directory, named by the token they opened the shell with. */
  forPerson(tokenId: string): string {
    return this.made(
      this.shared
        ? this.root
        : join(this.root, PEOPLE_DIR, tokenId.replace(/[^A-Za-z0-9._-]/g, '_')),
    );
  }

  /** The directory, made if missing; a file in the way or a full disk is said, not a 500. */
  private made(dir: string): string {
    try {
      mkdirSync(dir, { recursive: true, mode: WORKSPACE_MODE });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new JumpseatError(
        JUMPSEAT_ERR_SHELL_UNAVAILABLE,
        `cannot make the shell's workspace ${dir} (${code})`,
      );
    }
    return dir;
  }
}
