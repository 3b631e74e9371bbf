/**
 * Browser credentials with `--database` (browser-sessions.ts says what they are): rows of
 * `browser_credentials`, so a person logged in through one replica is logged in on all. Each
 * replica keeps the ones it has seen in memory, so a page keeps working while the database is
 * away; one it has not seen is looked up (it may be a minute old, from another replica).
 * Signing out deletes the row and tells every replica (NOTIFY on CREDENTIALS_CHANNEL, the
 * hash as payload), which forget it at once. Logging in while the database is away is
 * refused with 503 DATABASE_UNAVAILABLE: a credential only one replica knew would sign the
 * person out whenever the load balancer chose another.
 */
import type pg from 'pg';
import { refusedForDatabase } from '../database/database-refusal.ts';
import { type PostgresDatabase, unavailableReason } from '../database/postgres-database.ts';
import type { Disposable } from '../pty/disposable.ts';
import {
  type BrowserCredentials,
  credentialHash,
  MAX_SESSIONS_PER_TOKEN,
  newBrowserCredential,
} from './browser-sessions.ts';

export const CREDENTIALS_CHANNEL = 'jumpseat_browser_credentials';

export class SharedBrowserSessions implements BrowserCredentials {
  /** Credential hash → token id, as far as this replica knows. */
  readonly #known = new Map<string, string>();
  #listening: Disposable | undefined;

  private constructor(private readonly database: PostgresDatabase) {}

  static async open(database: PostgresDatabase): Promise<SharedBrowserSessions> {
    const sessions = new SharedBrowserSessions(database);
    sessions.#listening = await database.listen(CREDENTIALS_CHANNEL, (hash) => {
      sessions.#known.delete(hash);
    });
    // Sign-outs may have been missed meanwhile: learn them all again.
    database.onListenReconnect(() => {
      sessions.#reload().catch(() => undefined);
    });
    await sessions.#reload();
    return sessions;
  }

  async #reload(): Promise<void> {
    const { rows } = await this.database.query<{ sha256: string; token_id: string }>(
      'SELECT sha256, token_id FROM browser_credentials',
    );
    this.#known.clear();
    for (const row of rows) this.#known.set(row.sha256, row.token_id);
  }

  async create(tokenId: string): Promise<string> {
    const { credential, sha256 } = newBrowserCredential();
    try {
      const dropped = await this.database.transaction(async (client) => {
        await client.query('INSERT INTO browser_credentials (sha256, token_id) VALUES ($1, $2)', [
          sha256,
          tokenId,
        ]);
        // One per browser a person uses: past the bound, the oldest of this token's go.
        const old = await client.query<{ sha256: string }>(
          `DELETE FROM browser_credentials WHERE sha256 IN (
             SELECT sha256 FROM browser_credentials WHERE token_id = $1
             ORDER BY created_at DESC OFFSET $2)
           RETURNING sha256`,
          [tokenId, MAX_SESSIONS_PER_TOKEN],
        );
        for (const row of old.rows) await this.#announce(client, row.sha256);
        return old.rows.map((row) => row.sha256);
      });
      for (const hash of dropped) this.#known.delete(hash);
    } catch (error) {
      throw refusedForDatabase(error, "this browser's login");
    }
    this.#known.set(sha256, tokenId);
    return credential;
  }

  async tokenIdOf(credential: string): Promise<string | undefined> {
    const hash = credentialHash(credential);
    const known = this.#known.get(hash);
    if (known !== undefined || !this.database.state.available) return known;
    try {
      const { rows } = await this.database.query<{ token_id: string }>(
        'SELECT token_id FROM browser_credentials WHERE sha256 = $1',
        [hash],
      );
      const tokenId = rows[0]?.token_id;
      if (tokenId !== undefined) this.#known.set(hash, tokenId);
      return tokenId;
    } catch (error) {
      if (unavailableReason(error) === undefined) throw error;
      return undefined;
    }
  }

  async end(credential: string): Promise<void> {
    const hash = credentialHash(credential);
    this.#known.delete(hash);
    try {
      await this.database.transaction(async (client) => {
        await client.query('DELETE FROM browser_credentials WHERE sha256 = $1', [hash]);
        await this.#announce(client, hash);
      });
    } catch (error) {
      throw refusedForDatabase(error, 'signing this browser out');
    }
  }

  async prune(known: (tokenId: string) => boolean): Promise<void> {
    const gone = [...new Set(this.#known.values())].filter((tokenId) => !known(tokenId));
    if (gone.length === 0) return;
    try {
      await this.database.query('DELETE FROM browser_credentials WHERE token_id = ANY($1)', [gone]);
    } catch (error) {
      if (unavailableReason(error) === undefined) throw error;
    }
    for (const [hash, tokenId] of this.#known) if (gone.includes(tokenId)) this.#known.delete(hash);
  }

  close(): void {
    this.#listening?.dispose();
  }

  async #announce(client: pg.PoolClient, hash: string): Promise<void> {
    await client.query('SELECT pg_notify($1, $2)', [CREDENTIALS_CHANNEL, hash]);
  }
}
