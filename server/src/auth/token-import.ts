/**
 * Tokens minted before `--database`: at a start with a database, a `tokens.json` in the data
 * dir (the server ran embedded) is imported into PostgreSQL, each token the database does not
 * have yet, as the file keeps it (id, hash, role, name, agent, labels, revocation…; never a
 * secret, the file holds none). The database wins over the file. The file is then renamed
 * `tokens.json.imported`: left in place it would look in use while nothing reads it, and a
 * `tokens.json` that appears again (an embedded run since) is imported at the next start.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { errorCode } from '../config/admin-token.ts';
import { ConfigError } from '../config/config-error.ts';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import { renameDurably } from '../durable-file.ts';
import { loadTokenRecords, tokensFilePath } from './token-file.ts';
import { TokenPostgresEngine } from './token-postgres-engine.ts';

const IMPORTED_SUFFIX = '.imported';
/** Files of earlier imports kept beside it (`.imported`, `.imported.2`, …) at most. */
const MAX_IMPORTED_FILES = 100;

export interface TokenImport {
  readonly path: string;
  /** Tokens in the file. */
  readonly found: number;
  /** Of those, the ones the database did not have (added now). */
  readonly imported: number;
  /** Where the file is now; null when another replica on this data dir moved it first. */
  readonly movedTo: string | null;
}

/**
 * Imports `<dataDir>/tokens.json`, if there is one. A file that cannot be read or is not a
 * tokens file throws ConfigError naming it, before anything is written; a database that
 * refuses leaves the file as it was.
 */
export async function importTokensFile(
  dataDir: string,
  database: PostgresDatabase,
): Promise<TokenImport | undefined> {
  const path = tokensFilePath(dataDir);
  if (!existsSync(path)) return undefined;
  const records = loadTokenRecords(dataDir);
  // Moved meanwhile by another replica started on this data dir, which imports it.
  if (records.length === 0 && !existsSync(path)) return undefined;
  let ids: string[];
  try {
    ids = await new TokenPostgresEngine(database).importRecords(records);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`importing the tokens of "${path}": ${reason}; the file is left as it was`);
  }
  return { path, found: records.length, imported: ids.length, movedTo: moveAside(path) };
}

/** The banner's line about an import. */
export function importLine(done: TokenImport): string {
  const moved = done.movedTo === null ? '' : `; the file is now ${basename(done.movedTo)}`;
  return `tokens: imported ${done.imported} of ${done.found} from ${done.path} into the database (it had the other ${done.found - done.imported})${moved}`;
}

/** Renames the file to the first free `.imported` name; an earlier import's is never replaced. */
function moveAside(path: string): string | null {
  for (let copy = 1; copy <= MAX_IMPORTED_FILES; copy++) {
    const target = `${path}${IMPORTED_SUFFIX}${copy === 1 ? '' : `.${copy}`}`;
    if (existsSync(target)) continue;
    try {
      renameDurably(path, target);
      return target;
    } catch (error) {
      // Another replica started on this data dir moved it first: imported all the same.
      if (errorCode(error) === 'ENOENT') return null;
      throw new ConfigError(
        `the tokens of "${path}" are imported into the database, but it cannot be renamed to "${target}" (${errorCode(error)}); rename or remove it`,
      );
    }
  }
  throw new ConfigError(
    `the tokens of "${path}" are imported into the database, but ${MAX_IMPORTED_FILES} earlier imports' files are beside it; remove them or this one`,
  );
}
