/**
 * The host user sandboxed shells run as when the server is root: a dedicated unprivileged
 * account (`--shell-user`, `jumpseat-shell` by default, made as a system user when missing),
 * so the host's root-owned files are "other" to a shell and its `/proc/sys` writes, root-only
 * reads and owner-writable files all fail as for any user. Not root, the server cannot give a
 * shell another uid, and its shells stay its own user inside a user namespace, as before.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const DEFAULT_SHELL_USER = 'jumpseat-shell';

/** useradd takes the passwd lock; another server making the same user holds it that long. */
const USERADD_TIMEOUT_MS = 15_000;

export interface ShellUser {
  readonly uid: number;
  readonly gid: number;
  /** The account's name; null for a bare `UID[:GID]` with no passwd entry. */
  readonly name: string | null;
}

/** Thrown when the shells' user cannot be found or made. */
export class ShellUserError extends Error {}

const NUMERIC = /^(\d+)(?::(\d+))?$/;
const ACCOUNT_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;

/** Checks `--shell-user` without touching the system: a user name or `UID[:GID]`. */
export function checkShellUserSpec(spec: string): string | null {
  const numeric = NUMERIC.exec(spec);
  if (numeric) {
    if (Number(numeric[1]) === 0 || Number(numeric[2] ?? numeric[1]) === 0) {
      return 'must not be root (uid or gid 0)';
    }
    return null;
  }
  if (spec === 'root') return 'must not be root (uid or gid 0)';
  return ACCOUNT_NAME.test(spec) ? null : 'must be a user name or UID[:GID]';
}

/** The passwd entry named `name`, if the system has one. */
function lookUp(name: string): ShellUser | null {
  let text = '';
  try {
    text = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    const [entry, , uid, gid] = line.split(':');
    if (entry === name && uid !== undefined && gid !== undefined) {
      return { uid: Number(uid), gid: Number(gid), name };
    }
  }
  return null;
}

/**
 * The user `spec` names, made as a system user with a group of its own when it is a name the
 * system lacks (no home, no login shell: nothing can log in as it).
 */
export function resolveShellUser(spec: string): ShellUser {
  const wrong = checkShellUserSpec(spec);
  if (wrong !== null) throw new ShellUserError(`--shell-user ${spec} ${wrong}`);
  const numeric = NUMERIC.exec(spec);
  if (numeric) {
    const uid = Number(numeric[1]);
    return { uid, gid: Number(numeric[2] ?? numeric[1]), name: null };
  }
  const found = lookUp(spec);
  if (found) return checked(found, spec);
  const made = spawnSync(
    'useradd',
    [
      '--system',
      '--user-group',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      spec,
    ],
    { encoding: 'utf8', timeout: USERADD_TIMEOUT_MS, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // Another server starting at the same moment may have made it first.
  const after = lookUp(spec);
  if (after) return checked(after, spec);
  const said = (made.stderr ?? '').trim().split('\n')[0] || made.error?.message || 'failed';
  throw new ShellUserError(
    `--shell-user ${spec}: no such user, and useradd could not make it (${said}); make it with "useradd --system --user-group ${spec}" or pass --shell-user UID:GID`,
  );
}

function checked(user: ShellUser, spec: string): ShellUser {
  if (user.uid === 0 || user.gid === 0) {
    throw new ShellUserError(`--shell-user ${spec} must not be root (uid or gid 0)`);
  }
  return user;
}
