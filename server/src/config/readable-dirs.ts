/**
 * `--readable DIR`: directories every sandboxed shell may read at their own path (a project
 * whose programs the shells run, as a Playwright test of a CLI does). Each must be a
 * directory; none may be the root, or hold (be or contain) the home (its keys and tokens),
 * the temp dir (every shell's private dir and nonce), the data dir or the workspace root, nor
 * lie in the data dir or the workspace root. Refusing at start beats hiding again: a hidden
 * path inside a shown one is one missed mount away from a leak, and the message names the fix.
 */
import { realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, relative, resolve, sep } from 'node:path';
import { ConfigError } from './config-error.ts';
import type { FlagValues, Setting } from './setting-values.ts';

export interface ReadablePlaces {
  readonly cwd: string;
  readonly home: string | undefined;
  readonly dataDir: string;
  readonly workspace: string;
  /** The temp dir the server makes shells' private dirs in (os.tmpdir()). */
  readonly tmp: string;
}

/** `child` is `parent` or lies below it (paths as given: call with real paths). */
export function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path where it exists yet, else the path as given. */
export function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function settingsOf(values: FlagValues, env: NodeJS.ProcessEnv): Setting[] {
  const flags = values.readable;
  if (Array.isArray(flags)) {
    return flags
      .filter((raw) => typeof raw === 'string')
      .map((raw) => ({ raw, source: '--readable' }));
  }
  const fromEnv = env.JUMPSEAT_READABLE;
  if (fromEnv === undefined || fromEnv === '') return [];
  return fromEnv
    .split(delimiter)
    .filter((raw) => raw !== '')
    .map((raw) => ({ raw, source: 'JUMPSEAT_READABLE' }));
}

/** The real paths of the readable directories, or a ConfigError saying which one is wrong. */
export function readReadableDirs(
  values: FlagValues,
  env: NodeJS.ProcessEnv,
  places: ReadablePlaces,
): string[] {
  const dirs = new Set<string>();
  for (const { raw, source } of settingsOf(values, env)) {
    const given = resolve(places.cwd, raw);
    let isDirectory = false;
    try {
      isDirectory = statSync(given).isDirectory();
    } catch {
      throw new ConfigError(`${source}: ${given} does not exist`);
    }
    if (!isDirectory) throw new ConfigError(`${source}: ${given} is not a directory`);
    const dir = real(given);
    const refuse = (why: string): never => {
      throw new ConfigError(`${source}: ${given} ${why}; name a directory of the project instead`);
    };
    if (dir === sep) refuse('is the whole file system');
    if (places.home && inside(real(places.home), dir)) refuse('holds the home directory');
    if (inside(real(places.tmp), dir)) {
      refuse(`holds the temp dir ${real(places.tmp)} (every shell's private files)`);
    }
    if (inside(dir, real(places.dataDir))) refuse("is inside the data dir (the server's own)");
    if (inside(real(places.dataDir), dir)) refuse("holds the data dir (the server's own)");
    if (inside(dir, real(places.workspace))) refuse("is inside the workspace root (the agents')");
    if (inside(real(places.workspace), dir)) refuse("holds the workspace root (the agents')");
    dirs.add(dir);
  }
  return [...dirs];
}
