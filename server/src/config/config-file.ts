/**
 * `--config FILE` (or JUMPSEAT_CONFIG): settings from a YAML file (JSON is YAML too), one key
 * per flag, named as the flag without its dashes (`port: 7400`, `trust-proxy: 127.0.0.1`,
 * `readable: [/srv/a, /srv/b]`). The file is the lowest layer: flags win over variables, and
 * variables over the file. It becomes the variables' fallback, so every setting is read and
 * checked by the same code whichever layer it came from; a refusal names the file's key.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { ConfigError } from './config-error.ts';
import { envNameOf, FLAGS, type FlagName } from './flags.ts';
import type { FlagValues } from './setting-values.ts';

/** Separators of a list given as one variable (JUMPSEAT_READABLE is a PATH-like list). */
const LIST_SEPARATORS: Partial<Record<FlagName, string>> = { readable: ':' };
/** Keys that make no sense in the file itself. */
const NOT_IN_FILE = new Set<string>(['config', 'help']);

/**
 * Runs `load` with `env` layered over the file's settings (when a file is named), and makes
 * a refusal of a file's value name the file and key instead of the variable it went through.
 */
export function withConfigFile<T>(
  values: FlagValues,
  env: NodeJS.ProcessEnv,
  cwd: string,
  load: (env: NodeJS.ProcessEnv) => T,
): T {
  const named = typeof values.config === 'string' ? values.config : env.JUMPSEAT_CONFIG;
  if (named === undefined || named === '') return load(env);
  const path = resolve(cwd, named);
  const fromFile = fileSettings(path);
  const renamed = new Map<string, string>();
  const layered: NodeJS.ProcessEnv = { ...env };
  for (const [name, raw] of fromFile) {
    const variable = envNameOf(name);
    if (variable === undefined || (env[variable] ?? '') !== '') continue;
    layered[variable] = raw;
    renamed.set(variable, `${name} in config file "${path}"`);
  }
  try {
    return load(layered);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    let message = error.message;
    for (const [variable, key] of renamed) message = message.replaceAll(variable, key);
    throw new ConfigError(message);
  }
}

function fileSettings(path: string): Map<FlagName, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new ConfigError(`config file "${path}" cannot be read (${code})`);
  }
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : '';
    throw new ConfigError(`config file "${path}" is not valid YAML: ${reason}`);
  }
  if (parsed === null || parsed === undefined) return new Map();
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`config file "${path}" must be a mapping of flag names to values`);
  }
  const settings = new Map<FlagName, string>();
  for (const [key, value] of Object.entries(parsed)) {
    if (!(key in FLAGS) || NOT_IN_FILE.has(key)) {
      throw new ConfigError(`config file "${path}": unknown key "${key}" (keys are flag names)`);
    }
    const name = key as FlagName;
    settings.set(name, rawOf(value, name, path));
  }
  return settings;
}

/** The value as its variable would hold it. */
function rawOf(value: unknown, name: FlagName, path: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return value.join(LIST_SEPARATORS[name] ?? ',');
  }
  throw new ConfigError(
    `config file "${path}": ${name} must be a string, a number, true/false or a list of strings`,
  );
}
