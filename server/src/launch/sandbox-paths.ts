/**
 * What a sandboxed shell sees of the host's file system: the system read-only, and hidden
 * beneath empty directories everything of the server's (data dir, its own source and
 * node_modules), the server user's home (keys, tokens, caches) and the other agents'
 * workspaces. Tools installed under the home and on PATH (pyenv, .NET global tools such as
 * pwsh) are shown again read-only, so the shell finds the programs the server's user has.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding the server's package.json (its source, dist and node_modules): the
 * nearest one above this module, whether it runs from the TypeScript source or compiled.
 */
export const PACKAGE_ROOT = packageRootOf(dirname(fileURLToPath(import.meta.url)));

function isOurPackage(manifest: string): boolean {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'jumpseat';
  } catch {
    return false;
  }
}

function packageRootOf(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (isOurPackage(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

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
