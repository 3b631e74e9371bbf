/**
 * The auth side's PostgreSQL tables (listed in database/schema.ts): minted tokens and share
 * links, browser credentials, the live tickets already used, and rename allowances. The secret
 * live tickets are signed with is a row of `settings` (live-ticket-secret.ts).
 */
import type { PostgresMigration } from '../database/postgres-migrations.ts';

export const AUTH_MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'auth-1',
    sql: `
      -- One row per minted token or share link; record is token-file.ts's TokenRecord, checked
      -- by the same schema as the tokens file, so both engines keep the same thing.
      CREATE TABLE auth_tokens (
        id TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL UNIQUE,
        record JSONB NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE browser_credentials (
        sha256 TEXT PRIMARY KEY,
        token_id TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX browser_credentials_by_token ON browser_credentials (token_id, created_at);
      CREATE TABLE live_ticket_uses (
        nonce TEXT PRIMARY KEY,
        expires_at TIMESTAMPTZ NOT NULL
      );
    `,
  },
  {
    name: 'auth-2',
    sql: `
      -- Each token's rename allowance (rename-limit.ts), shared so that replicas do not each
      -- grant a burst; at_ms is on the database's clock. Removed with its token's row.
      CREATE TABLE rename_allowances (
        token_id TEXT PRIMARY KEY,
        tokens INTEGER NOT NULL,
        at_ms BIGINT NOT NULL
      );
    `,
  },
];
