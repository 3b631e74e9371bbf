/**
 * Where the CLI's client commands connect and with which token: flags first, then
 * JUMPSEAT_URL / JUMPSEAT_TOKEN / JUMPSEAT_TOKEN_FILE, then the local server's defaults.
 * A token is never a command-line argument (every process can read command lines, as
 * ARCHITECTURE.md says of the server's): `--token-file` is the flag that gives one.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { JumpseatClient } from '../../../client/src/index.ts';
import { ADMIN_TOKEN_FILE_NAME, adminTokenPath, readTokenFile } from '../config/admin-token.ts';
import { ConfigError } from '../config/config-error.ts';
import { DEFAULT_DATA_DIR, DEFAULT_HOST, DEFAULT_PORT } from '../config/defaults.ts';

/** A usage mistake: the CLI prints it with a pointer to --help and exits 2. */
export class UsageError extends Error {}

/** The local server as `npm start` serves it by default. */
const DEFAULT_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;

export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export const CONNECTION_HELP = [
  'Connection:',
  `  --url URL          server to talk to [JUMPSEAT_URL] (${DEFAULT_URL})`,
  '  --token-file FILE  file holding the token; else JUMPSEAT_TOKEN (the token itself), else',
  `                     JUMPSEAT_TOKEN_FILE, else the local server's ${DEFAULT_DATA_DIR}/${ADMIN_TOKEN_FILE_NAME}`,
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
    url: url ?? DEFAULT_URL,
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
  const local = adminTokenPath(resolve(nonEmpty(env.JUMPSEAT_DATA_DIR) ?? DEFAULT_DATA_DIR));
  if (!existsSync(local)) {
    throw new UsageError(
      'no token: pass --token-file, or set JUMPSEAT_TOKEN or JUMPSEAT_TOKEN_FILE',
    );
  }
  return readToken(local, 'admin token file');
}

/** The server's own reader, so both accept and refuse the same files. */
function readToken(path: string, source: string): string {
  try {
    return readTokenFile(path, `${source} "${path}"`);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

function stringOf(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? nonEmpty(value) : undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
