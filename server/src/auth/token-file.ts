/**
 * The minted tokens' file in the data directory (`tokens.json`, mode 600): hashes and roles,
 * never a token. Replaced durably (flushed, renamed into place, the directory flushed), so
 * a crash never leaves half a file, nor an empty one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { AGENT_ID_PATTERN, ROLES } from '../../../shared/src/api.ts';
import { errorCode, SECRET_FILE_MODE } from '../config/admin-token.ts';
import { ConfigError } from '../config/config-error.ts';
import { replaceFileDurably } from '../durable-file.ts';

export const TOKENS_FILE_NAME = 'tokens.json';
const TOKENS_FILE_VERSION = 1;

/** One kept token, the same in `tokens.json` and in PostgreSQL's `auth_tokens.record`. */
export const TokenRecord = Type.Object({
  id: Type.String({ minLength: 1 }),
  /** Hex SHA-256 of the token. */
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  role: Type.Enum(ROLES),
  agent: Type.Optional(Type.String({ pattern: AGENT_ID_PATTERN })),
  name: Type.String(),
  createdAt: Type.String(),
  /** Share links: the one session the token reaches. */
  scope: Type.Optional(Type.String({ minLength: 1 })),
  /** Share links: ISO time the token stops working. */
  expiresAt: Type.Optional(Type.String()),
  /** False while a share link's holder has not given their name. */
  named: Type.Optional(Type.Boolean()),
  /** The display name of whoever minted it. */
  createdBy: Type.Optional(Type.String()),
  /** ISO time it was revoked (kept a while, to tell its holder so). */
  revokedAt: Type.Optional(Type.String()),
  /** The display name of whoever revoked it (every replica's sockets are told who). */
  revokedBy: Type.Optional(Type.String()),
  /** ISO time of the last request it authenticated, saved at most once a minute. */
  lastUsedAt: Type.Optional(Type.String()),
  /** Role agent: placement labels its shells need on a host. */
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type TokenRecord = Static<typeof TokenRecord>;

const TokensFile = Type.Object({
  version: Type.Literal(TOKENS_FILE_VERSION),
  tokens: Type.Array(TokenRecord),
});

export function tokensFilePath(dataDir: string): string {
  return join(dataDir, TOKENS_FILE_NAME);
}

/** The saved records; none when the file does not exist yet. */
export function loadTokenRecords(dataDir: string): TokenRecord[] {
  const path = tokensFilePath(dataDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw new ConfigError(`tokens file "${path}" cannot be read (${errorCode(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`tokens file "${path}" is not valid JSON; fix or delete it`);
  }
  if (!Value.Check(TokensFile, parsed)) {
    throw new ConfigError(`tokens file "${path}" has an unexpected shape; fix or delete it`);
  }
  const agentless = parsed.tokens.find(
    (record) => (record.role === 'agent') !== (record.agent !== undefined),
  );
  if (agentless !== undefined) {
    throw new ConfigError(`tokens file "${path}": token ${agentless.id} has a role/agent mismatch`);
  }
  return parsed.tokens;
}

export function saveTokenRecords(dataDir: string, records: readonly TokenRecord[]): void {
  const text = `${JSON.stringify({ version: TOKENS_FILE_VERSION, tokens: records }, null, 2)}\n`;
  replaceFileDurably(tokensFilePath(dataDir), text, SECRET_FILE_MODE);
}
