/**
 * Reading one setting (a flag, else its JUMPSEAT_* variable) and checking its value; every
 * refusal is one line naming where the value came from.
 */
import { mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isExecutableFile } from '../pty/executable-path.ts';
import { errorCode } from './admin-token.ts';
import { ConfigError } from './config-error.ts';
import { DEFAULT_HOST, DEFAULT_PORT } from './defaults.ts';
import { envNameOf, type FlagName } from './flags.ts';

export type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** A raw value with the flag or variable it came from, the name every message blames. */
export interface Setting {
  readonly raw: string;
  readonly source: string;
}

export { DEFAULT_HOST, DEFAULT_PORT };

const MAX_PORT = 65_535;

/** The flag's value, else its variable's (an empty variable counts as unset). */
export function readSetting(
  values: FlagValues,
  env: NodeJS.ProcessEnv,
  name: FlagName,
): Setting | undefined {
  const flag = values[name];
  if (typeof flag === 'string') return { raw: flag, source: `--${name}` };
  const envName = envNameOf(name);
  const fromEnv = envName === undefined ? undefined : env[envName];
  if (envName !== undefined && fromEnv !== undefined && fromEnv !== '') {
    return { raw: fromEnv, source: envName };
  }
  return undefined;
}

export function got(setting: Setting): string {
  // JSON quoting keeps the message on one line whatever the value holds.
  return `(got ${JSON.stringify(setting.raw)})`;
}

export function nonEmpty(setting: Setting): string {
  if (setting.raw.trim() === '') throw new ConfigError(`${setting.source} must not be empty`);
  return setting.raw;
}

export function readHost(setting: Setting | undefined): string {
  if (setting === undefined) return DEFAULT_HOST;
  if (!/^\S+$/.test(setting.raw)) {
    throw new ConfigError(`${setting.source} must be a host name or IP address ${got(setting)}`);
  }
  return setting.raw;
}

export function readPort(setting: Setting | undefined): number {
  if (setting === undefined) return DEFAULT_PORT;
  const port = /^[0-9]{1,5}$/.test(setting.raw) ? Number(setting.raw) : Number.NaN;
  if (!(port >= 0 && port <= MAX_PORT)) {
    throw new ConfigError(
      `${setting.source} must be an integer from 0 to ${MAX_PORT} ${got(setting)}`,
    );
  }
  return port;
}

export function positiveInteger(
  setting: Setting | undefined,
  fallback: number,
  max: number,
  min = 1,
): number {
  if (setting === undefined) return fallback;
  const value = /^[0-9]+$/.test(setting.raw) ? Number(setting.raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new ConfigError(`${setting.source} must be a positive integer ${got(setting)}`);
  }
  if (value < min) {
    throw new ConfigError(`${setting.source} must be at least ${min} ${got(setting)}`);
  }
  if (value > max)
    throw new ConfigError(`${setting.source} must be at most ${max} ${got(setting)}`);
  return value;
}

export function oneOf<T extends string>(
  setting: Setting | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (setting === undefined) return fallback;
  const match = allowed.find((value) => value === setting.raw);
  if (match === undefined) {
    const list = allowed.map((value) => `"${value}"`).join(', ');
    throw new ConfigError(`${setting.source} must be one of ${list} ${got(setting)}`);
  }
  return match;
}

export function existingDirectory(setting: Setting, cwd: string): string {
  const path = resolve(cwd, nonEmpty(setting));
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch (error) {
    const reason =
      errorCode(error) === 'ENOENT' ? 'does not exist' : `cannot be read (${errorCode(error)})`;
    throw new ConfigError(`${setting.source} "${path}" ${reason}`);
  }
  if (!isDirectory) throw new ConfigError(`${setting.source} "${path}" is not a directory`);
  return path;
}

export function executableFile(setting: Setting, cwd: string): string {
  const path = resolve(cwd, nonEmpty(setting));
  if (!isExecutableFile(path)) {
    throw new ConfigError(`${setting.source} "${path}" is not an executable file`);
  }
  return path;
}

export function ensureDirectory(path: string, source: string, mode?: number): void {
  try {
    mkdirSync(path, { recursive: true, ...(mode === undefined ? {} : { mode }) });
  } catch (error) {
    const code = errorCode(error);
    // mkdir reports a file in the way as EEXIST (the path) or ENOTDIR (a parent).
    const reason =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'is not a directory'
        : `cannot be created (${code})`;
    throw new ConfigError(`${source} "${path}" ${reason}`);
  }
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  K: 1024,
  M: 1024 ** 2,
  G: 1024 ** 3,
  T: 1024 ** 4,
};

/** A size in bytes: `1073741824`, `512M`, `2G` or `2GiB` (units are powers of 1024). */
export function byteSize(setting: Setting | undefined, min: number): number | undefined {
  if (setting === undefined) return undefined;
  const match = /^([0-9]+)\s*([KMGT]?)(?:i?B)?$/i.exec(setting.raw.trim());
  const value = match
    ? Number(match[1]) * (SIZE_UNITS[(match[2] ?? '').toUpperCase()] ?? Number.NaN)
    : Number.NaN;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new ConfigError(`${setting.source} must be a size such as 512M or 2G ${got(setting)}`);
  }
  if (value < min)
    throw new ConfigError(`${setting.source} must be at least ${min} bytes ${got(setting)}`);
  return value;
}
