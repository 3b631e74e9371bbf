/**
 * Finding a program as `execvp` would, without trusting the current directory: the first
 * executable regular file of that name in PATH's absolute directories.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

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

/** `name` in the first of `path`'s directories that has it; empty and relative entries skipped. */
export function findOnPath(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? '').split(delimiter)) {
    // An empty or relative PATH entry means the current directory: never trusted here.
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}
