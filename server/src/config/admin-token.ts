/**
 * Finds the admin token: from a token file, from JUMPSEAT_TOKEN, or the one jumpseat
 * generated on an earlier start and kept in the data directory (created on first start).
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTokenSecret, isWellFormedToken } from '../auth/token-secret.ts';
import { ConfigError } from './config-error.ts';

/** Name of the generated admin token's file inside the data directory. */
export const ADMIN_TOKEN_FILE_NAME = 'admin-token';

/** Owner read/write only: the file is as powerful as the server itself. */
export const SECRET_FILE_MODE = 0o600;

export type AdminTokenSource = 'env' | 'file' | 'data-dir';

export interface AdminToken {
  readonly token: string;
  readonly source: AdminTokenSource;
}

export interface AdminTokenInputs {
  /** Token file given by flag or variable, with the name to blame in messages. */
  readonly tokenFile?: { readonly path: string; readonly source: string };
  /** JUMPSEAT_TOKEN, when set and not empty. */
  readonly envToken?: string;
}

/** The token the user gave (file first, as flags win), or undefined when none was given. */
export function givenAdminToken(inputs: AdminTokenInputs): AdminToken | undefined {
  if (inputs.tokenFile !== undefined) {
    const { path, source } = inputs.tokenFile;
    return { token: readTokenFile(path, `${source} "${path}"`), source: 'file' };
  }
  if (inputs.envToken !== undefined) {
    if (!isWellFormedToken(inputs.envToken)) {
      throw new ConfigError('JUMPSEAT_TOKEN must be printable ASCII without spaces');
    }
    return { token: inputs.envToken, source: 'env' };
  }
  return undefined;
}

/** Where the generated admin token is kept (the CLI reads it from there too). */
export function adminTokenPath(dataDir: string): string {
  return join(dataDir, ADMIN_TOKEN_FILE_NAME);
}

/** The token kept in `dataDir` (which must exist), generated and saved the first time. */
export function storedAdminToken(dataDir: string): AdminToken {
  return { token: storedToken(dataDir), source: 'data-dir' };
}

/**
 * Reads one token from a file; surrounding white space (the final newline) is ignored.
 * Throws a ConfigError whose message starts with `label`.
 */
export function readTokenFile(path: string, label: string, hint = ''): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${label} cannot be read (${errorCode(error)})${hint}`);
  }
  const token = text.trim();
  if (token === '') throw new ConfigError(`${label} is empty${hint}`);
  if (!isWellFormedToken(token)) {
    throw new ConfigError(`${label} must hold one token of printable ASCII without spaces${hint}`);
  }
  return token;
}

/** The token kept in the data directory, generated the first time. */
function storedToken(dataDir: string): string {
  const path = adminTokenPath(dataDir);
  const fresh = createTokenSecret();
  try {
    // 'wx' never overwrites: two servers starting at once both end up with the same token.
    writeFileSync(path, `${fresh}\n`, { mode: SECRET_FILE_MODE, flag: 'wx' });
    return fresh;
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') {
      throw new ConfigError(`cannot create the admin token file "${path}" (${errorCode(error)})`);
    }
  }
  try {
    // Someone may have loosened it; the token is only as safe as this file.
    chmodSync(path, SECRET_FILE_MODE);
  } catch (error) {
    throw new ConfigError(`cannot restrict "${path}" to mode 600 (${errorCode(error)})`);
  }
  return readTokenFile(path, `admin token file "${path}"`, '; delete it to generate a new one');
}

export function errorCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return error instanceof Error ? error.message : String(error);
}
