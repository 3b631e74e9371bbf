/**
 * Sets up, once at start, the walls a sandbox adds beyond its namespaces: the shell user
 * shells become when the server is root (with setpriv to become it) and the seccomp filter,
 * written where only the server can read it. Also says in one line what holds, for the banner.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { findOnPath } from '../pty/executable-path.ts';
import { seccompFilterFor } from './seccomp-filter.ts';
import { resolveShellUser, type ShellUser } from './shell-user.ts';

/** The filter's file in the data dir (hidden from every sandbox). */
const SECCOMP_FILE_NAME = 'sandbox-seccomp.bpf';
const SECCOMP_FILE_MODE = 0o600;
/** Where setpriv (util-linux) is looked for beyond PATH: a root server's PATH may be short. */
const SYSTEM_BIN_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];

export interface SandboxWalls {
  readonly shellUser: { readonly user: ShellUser; readonly setpriv: string } | null;
  readonly seccompFile: string | null;
  /** For the banner: who shells run as and whether the filter holds. */
  readonly summary: string;
}

export interface WallSettings {
  readonly dataDir: string;
  /** `--shell-user`: a name or UID[:GID]; used only when the server is root. */
  readonly shellUser: string;
  readonly path: string | undefined;
  /** The server's uid (process.getuid()). */
  readonly serverUid: number;
}

/** Thrown when a wall cannot be put up; the sandbox is then unavailable. */
export class WallError extends Error {}

export function findSetpriv(path: string | undefined): string | null {
  return findOnPath('setpriv', [path ?? '', ...SYSTEM_BIN_DIRS].join(delimiter));
}

export function prepareWalls(settings: WallSettings): SandboxWalls {
  let shellUser: SandboxWalls['shellUser'] = null;
  if (settings.serverUid === 0) {
    const setpriv = findSetpriv(settings.path);
    if (setpriv === null) {
      throw new WallError(
        'setpriv (util-linux) is not installed: as root, shells need it to run as an unprivileged user',
      );
    }
    try {
      shellUser = { user: resolveShellUser(settings.shellUser), setpriv };
    } catch (error) {
      throw new WallError((error as Error).message);
    }
  }
  const filter = seccompFilterFor();
  let seccompFile: string | null = null;
  if (filter !== null) {
    seccompFile = join(settings.dataDir, SECCOMP_FILE_NAME);
    // Written whole then renamed: a shell starting meanwhile reads the old filter or the new.
    const temporary = `${seccompFile}.${process.pid}.tmp`;
    writeFileSync(temporary, filter, { mode: SECCOMP_FILE_MODE });
    renameSync(temporary, seccompFile);
  }
  const who = shellUser
    ? `as ${shellUser.user.name ?? 'uid'} (uid ${shellUser.user.uid})`
    : `as the server's user (uid ${settings.serverUid}) in a user namespace`;
  const filtered =
    seccompFile === null
      ? `no seccomp filter (none for ${process.arch})`
      : 'under a seccomp filter';
  return { shellUser, seccompFile, summary: `sandboxed shells run ${who}, ${filtered}` };
}
