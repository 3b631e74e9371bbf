/**
 * The auth side, kept where the configuration says: in the data dir (tokens.json,
 * browser-sessions.json, tickets signed with a secret of this process), or with `--database`
 * in PostgreSQL, shared live by every replica (README, "High availability").
 */
import type { PostgresDatabase } from '../database/postgres-database.ts';
import { type BrowserCredentials, BrowserSessions } from './browser-sessions.ts';
import { SharedBrowserSessions } from './browser-sessions-postgres.ts';
import { PostgresTicketUses, sharedTicketSecret } from './live-ticket-uses.ts';
import { LiveTickets } from './live-tickets.ts';
import { importTokensFile, type TokenImport } from './token-import.ts';
import { TokenStore } from './token-store.ts';

export interface Auth {
  readonly tokens: TokenStore;
  readonly browsers: BrowserCredentials;
  readonly tickets: LiveTickets;
  /** `--database` and a tokens.json in the data dir: what was imported from it. */
  readonly imported?: TokenImport;
}

export interface AuthPlace {
  readonly dataDir: string;
  readonly adminToken: string;
  /** `--database`: opened and migrated. */
  readonly database?: PostgresDatabase;
}

/**
 * Throws ConfigError when a file in the data dir is corrupt. With a database, the data dir's
 * tokens.json (an embedded server's) is imported first (token-import.ts).
 */
export async function openAuth({ dataDir, adminToken, database }: AuthPlace): Promise<Auth> {
  if (database === undefined) {
    return {
      tokens: TokenStore.open(dataDir, adminToken),
      browsers: BrowserSessions.open(dataDir),
      tickets: new LiveTickets(),
    };
  }
  const imported = await importTokensFile(dataDir, database);
  return {
    tokens: await TokenStore.openShared(database, adminToken),
    browsers: await SharedBrowserSessions.open(database),
    tickets: new LiveTickets(await sharedTicketSecret(database), new PostgresTicketUses(database)),
    ...(imported === undefined ? {} : { imported }),
  };
}
