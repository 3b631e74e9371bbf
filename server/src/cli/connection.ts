/**
 * Where the CLI's client commands connect and with which token: flags first, then
 * JUMPSEAT_URL / JUMPSEAT_TOKEN / JUMPSEAT_TOKEN_FILE, then the local server's defaults.
 * A token is never a command-line argument (every process can read command lines, as
 * ARCHITECTURE.md says of the server's): `--token-file` is the flag that gives one.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { JumpseatClient } from '../../../client/src/index.ts';
import { DEFAULT_DATA_DIR } from '../config/config.ts';
import { DEFAULT_HOST, DEFAULT_PORT } from '../config/setting-values.ts';

/** A usage mistake: the CLI prints it with a pointer to --help and exits 2. */
export class UsageError extends Error {}

export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export const CONNECTION_HELP = [
  'Connection:',
  `  --url URL          server to talk to [JUMPSEAT_URL] (http://${DEFAULT_HOST}:${DEFAULT_PORT})`,
  '  --token-file FILE  file holding the token; else JUMPSEAT_TOKEN (the token itself), else',
  `                     JUMPSEAT_TOKEN_FILE, else the local server's ${DEFAULT_DATA_DIR}/admin-token`,
  '                     (JUMPSEAT_DATA_DIR moves it)',
  '  -h, --help         print this help and exit',
].join('\n');

interface ConnectionValues {
  readonly url?: string | boolean;
  readonly 'token-file'?: string | boolean;
}

export function clientFrom(values: ConnectionValues, env: NodeJS.ProcessEnv): JumpseatClient {
  const url = stringOf(values.url) ?? nonEmpty(env.JUMPSEAT_URL);
  return new JumpseatClient({
    url: url ?? `http://${DEFAULT_HOST}:${DEFAULT_PORT}`,
    token: tokenFrom(values, env),
  });
}

function tokenFrom(values: ConnectionValues, env: NodeJS.ProcessEnv): string {
  const file = stringOf(values['token-file']);
  if (file !== undefined) return readToken(file, '--token-file');
  const fromEnv = nonEmpty(env.JUMPSEAT_TOKEN);
  if (fromEnv !== undefined) return fromEnv;
  const envFile = nonEmpty(env.JUMPSEAT_TOKEN_FILE);
  if (envFile !== undefined) return readToken(envFile, 'JUMPSEAT_TOKEN_FILE');
  const local = join(resolve(nonEmpty(env.JUMPSEAT_DATA_DIR) ?? DEFAULT_DATA_DIR), 'admin-token');
  try {
    return readFileSync(local, 'utf8').trim();
  } catch {
    throw new UsageError(
      'no token: pass --token-file, or set JUMPSEAT_TOKEN or JUMPSEAT_TOKEN_FILE',
    );
  }
}

function readToken(path: string, source: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${source}: cannot read ${path}: ${reason}`);
  }
  const token = text.trim();
  if (token === '') throw new UsageError(`${source}: ${path} is empty`);
  return token;
}

function stringOf(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? nonEmpty(value) : undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
