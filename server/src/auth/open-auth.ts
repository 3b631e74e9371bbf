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
import { TokenStore } from './token-store.ts';

export interface Auth {
  readonly tokens: TokenStore;
  readonly browsers: BrowserCredentials;
  readonly tickets: LiveTickets;
}

export interface AuthPlace {
  readonly dataDir: string;
  readonly adminToken: string;
  /** `--database`: opened and migrated. */
  readonly database?: PostgresDatabase;
}

/** Throws ConfigError when a file in the data dir is corrupt. */
export async function openAuth({ dataDir, adminToken, database }: AuthPlace): Promise<Auth> {
  if (database === undefined) {
    return {
      tokens: TokenStore.open(dataDir, adminToken),
      browsers: BrowserSessions.open(dataDir),
      tickets: new LiveTickets(),
    };
  }
  return {
    tokens: await TokenStore.openShared(database, adminToken),
    browsers: await SharedBrowserSessions.open(database),
    tickets: new LiveTickets(await sharedTicketSecret(database), new PostgresTicketUses(database)),
  };
}
