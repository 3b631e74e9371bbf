/**
 * What a sandboxed shell sees of the host's file system: the system read-only, and hidden
 * beneath empty directories everything of the server's (data dir, its own source and
 * node_modules), the server user's home (keys, tokens, caches) and the other agents'
 * workspaces. Tools installed under the home and on PATH (pyenv, .NET global tools such as
 * pwsh) are shown again read-only, so the shell finds the programs the server's user has.
 */
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
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

/** bwrap arguments for the hidden parts (empty tmpfs over each) and the tools kept visible. */
export function hidingArgs(paths: HiddenPaths): string[] {
  const args: string[] = [];
  for (const dir of RUNTIME_DIRS) {
    const real = realOrNull(dir);
    if (real === dir) args.push('--tmpfs', dir);
  }
  // A resolv.conf that points into /run (systemd-resolved) stays readable: DNS keeps working.
  const resolv = realOrNull('/etc/resolv.conf');
  if (resolv && RUNTIME_DIRS.some((dir) => inside(resolv, dir)))
    args.push('--ro-bind', resolv, resolv);
  const home = paths.home ? realOrNull(paths.home) : null;
  if (home && home !== '/') {
    args.push('--tmpfs', home);
    for (const dir of toolDirsUnder(home, paths.toolPaths)) args.push('--ro-bind', dir, dir);
  }
  for (const dir of [
    realOrNull(PACKAGE_ROOT),
    realOrNull(paths.dataDir),
    paths.workspaceRoot && realOrNull(paths.workspaceRoot),
  ]) {
    if (dir && dir !== '/') args.push('--tmpfs', dir);
  }
  return args;
}

/**
 * The top-level directories under `home` that hold a tool directory (a PATH entry, or the
 * pwsh executable's real location): `~/.dotnet` for `~/.dotnet/tools`, `~/.pyenv` for shims.
 */
function toolDirsUnder(home: string, toolPaths: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const path of toolPaths) {
    for (const candidate of [path, realOrNull(path)]) {
      if (!candidate || !isAbsolute(candidate) || !existsSync(candidate)) continue;
      const real = realOrNull(candidate);
      if (!real || !inside(real, home) || real === home) continue;
      const top = real.slice(home.length + 1).split(sep)[0];
      if (top) dirs.add(join(home, top));
    }
  }
  return [...dirs].sort();
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
  for (const dir of shown) args.push('--ro-bind', dir, dir);
  for (const dir of [
    realOrNull(PACKAGE_ROOT),
    realOrNull(paths.dataDir),
    paths.workspaceRoot && realOrNull(paths.workspaceRoot),
  ]) {
    if (dir && shown.some((readable) => inside(dir, readable))) args.push('--tmpfs', dir);
  }
  return args;
}
