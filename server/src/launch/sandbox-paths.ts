/**
 * What a sandboxed shell sees of the host's file system: the system read-only, and hidden
 * beneath empty directories everything of the server's (data dir, its own source and
 * node_modules), the server user's home (keys, tokens, caches) and the other agents'
 * workspaces. The PATH directories under the home (.NET global tools such as pwsh, ~/.local/bin)
 * are shown again read-only, each by itself, so the shell finds the programs the server's user
 * has and nothing else of the home.
 */
import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.ts';

/** System directories under which the host's own sockets live (D-Bus, container runtimes). */
const RUNTIME_DIRS = ['/run', '/var/run'];

export interface HiddenPaths {
  readonly dataDir: string;
  /** Hidden unless every shell shares it (`--shared-workspace`). */
  readonly workspaceRoot: string | null;
  readonly home: string | undefined;
  /** PATH of the shells, and the pwsh executable if any: tools to keep visible. */
  readonly toolPaths: readonly string[];
}

/** Absolute real path, or null when the path does not exist. */
export function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Directories bwrap makes on the way to a mount point: enterable by every user. */
const MOUNT_PARENT_MODE = '0755';

/**
 * bwrap arguments mounting `source` at `dest` (`--bind`, `--ro-bind`, or `--tmpfs` with no
 * source), its missing parents made mode 755: bwrap makes them 700 and root's, which only
 * root could enter, and a shell that is its own user (shell-user.ts) must reach its
 * workspace, private dir and saved outputs through them.
 */
export function mountArgs(
  kind: '--bind' | '--ro-bind' | '--tmpfs',
  dest: string,
  source?: string,
): string[] {
  const parent = dirname(dest);
  const parents =
    parent === dest || parent === '/' ? [] : ['--perms', MOUNT_PARENT_MODE, '--dir', parent];
  return [...parents, kind, ...(source === undefined ? [] : [source]), dest];
}

/** The home directory the sandbox hides beneath an empty tmpfs (its real path), if any. */
export function hiddenHome(paths: HiddenPaths): string | null {
  const home = paths.home ? realOrNull(paths.home) : null;
  return home && home !== '/' ? home : null;
}

/** bwrap arguments for the hidden parts (empty tmpfs over each) and the tools kept visible. */
export function hidingArgs(paths: HiddenPaths): string[] {
  const args: string[] = [];
  for (const dir of RUNTIME_DIRS) {
    const real = realOrNull(dir);
    if (real === dir) args.push(...mountArgs('--tmpfs', dir));
  }
  // A resolv.conf that points into /run (systemd-resolved) stays readable: DNS keeps working.
  const resolv = realOrNull('/etc/resolv.conf');
  if (resolv && RUNTIME_DIRS.some((dir) => inside(resolv, dir)))
    args.push(...mountArgs('--ro-bind', resolv, resolv));
  const home = hiddenHome(paths);
  const serverOwn = [PACKAGE_ROOT, paths.dataDir, paths.workspaceRoot]
    .map((dir) => (dir ? realOrNull(dir) : null))
    .filter((dir): dir is string => dir !== null && dir !== '/');
  if (home) {
    args.push(...mountArgs('--tmpfs', home));
    for (const { source, dest } of toolDirsUnder(home, paths.toolPaths, serverOwn)) {
      args.push(...mountArgs('--ro-bind', dest, source));
    }
  }
  for (const dir of serverOwn) args.push(...mountArgs('--tmpfs', dir));
  return args;
}

/** A PATH directory's executables whose links are followed to find their real directories. */
const MAX_TOOL_ENTRIES = 4096;

interface ToolMount {
  readonly source: string;
  readonly dest: string;
}

/**
 * The directories under `home` that tools need, each shown by itself: every PATH entry (at
 * the path it is written as and at its real path), the pwsh executable's directory, and the
 * real directory of every executable there that is a symbolic link. Never a top-level
 * directory that merely holds one: `~/.local/bin` on PATH shows `~/.local/bin`, not
 * `~/.local` with `~/.local/share/keyrings`. A tool that needs more than that (pyenv's
 * shims run `~/.pyenv/libexec`) is shown with `--readable ~/.pyenv`. Nothing inside the
 * server's own directories is shown again.
 */
function toolDirsUnder(
  home: string,
  toolPaths: readonly string[],
  serverOwn: readonly string[],
): ToolMount[] {
  const mounts = new Map<string, ToolMount>();
  const shows = (dir: string): boolean =>
    inside(dir, home) && dir !== home && !serverOwn.some((own) => inside(dir, own));
  const add = (source: string, dest: string): void => {
    if (shows(source) && (dest === source || shows(dest))) mounts.set(dest, { source, dest });
  };
  for (const path of toolPaths) {
    if (!isAbsolute(path)) continue;
    const real = realOrNull(path);
    if (!real) continue;
    const isDir = directoryOrNull(real);
    if (isDir === null) continue;
    const dir = isDir ? real : dirname(real);
    const written = isDir ? normalize(path) : dirname(normalize(path));
    add(dir, dir);
    if (written !== dir) add(dir, written);
    for (const target of linkTargetDirs(dir)) add(target, target);
  }
  // A parent before its children: a later mount over a parent would hide what is under it.
  return [...mounts.values()].sort((a, b) => (a.dest < b.dest ? -1 : a.dest > b.dest ? 1 : 0));
}

/** True for a directory, false for another kind of file, null when it cannot be looked at. */
function directoryOrNull(path: string): boolean | null {
  try {
    return statSync(path).isDirectory();
  } catch {
    return null;
  }
}

/** The real directories of the symbolic links in `dir` (the first MAX_TOOL_ENTRIES entries). */
function linkTargetDirs(dir: string): string[] {
  const found = new Set<string>();
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).slice(0, MAX_TOOL_ENTRIES);
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!entry.isSymbolicLink()) continue;
    const target = realOrNull(join(dir, entry.name));
    if (target && directoryOrNull(target) === false) found.add(dirname(target));
  }
  return [...found];
}

/**
 * bwrap arguments for `--readable` directories: each shown read-only at its own path, then
 * what of the server lies inside one (its package, data dir, the workspace root) hidden again
 * beneath an empty directory, as `hidingArgs` hides it elsewhere. They come after
 * `hidingArgs` (a project under the hidden home shows through) and before a shell's own
 * workspace is mounted (a workspace inside a readable directory stays the shell's own).
 */
export function readableArgs(dirs: readonly string[], paths: HiddenPaths): string[] {
  const shown = dirs.map(realOrNull).filter((dir): dir is string => dir !== null);
  const args: string[] = [];
  for (const dir of shown) args.push(...mountArgs('--ro-bind', dir, dir));
  for (const dir of [
    realOrNull(PACKAGE_ROOT),
    realOrNull(paths.dataDir),
    paths.workspaceRoot && realOrNull(paths.workspaceRoot),
  ]) {
    if (dir && shown.some((readable) => inside(dir, readable))) {
      args.push(...mountArgs('--tmpfs', dir));
    }
  }
  return args;
}
