/**
 * `--database`: what live tickets need from PostgreSQL (see live-tickets.ts for why they are
 * signed, not stored). The signing secret is one row of `settings`, made by whichever replica
 * starts first; the nonces of used tickets are claimed in `live_ticket_uses`, so a ticket
 * works once across every replica. While the database is away a ticket is checked on this
 * replica alone: at worst one that leaked could be used once more on another replica within
 * its 30 s, by whoever holds it, for a token that still works — accepted, so pages keep
 * opening their sockets through an outage.
 */
import { randomBytes } from 'node:crypto';
import { type PostgresDatabase, unavailableReason } from '../database/postgres-database.ts';
import type { TicketUses } from './live-tickets.ts';

/** The `settings` key of the secret live tickets are signed with. */
const SECRET_SETTING = 'auth.live_ticket_secret';
const SECRET_BYTES = 32;
/** Used nonces past their ticket's life are deleted at most this often. */
const SWEEP_INTERVAL_MS = 60_000;

/** The secret every replica signs live tickets with; made once, by the first to ask. */
export async function sharedTicketSecret(database: PostgresDatabase): Promise<Buffer> {
  await database.query(
    `INSERT INTO settings (key, value) VALUES ($1, to_jsonb($2::text)) ON CONFLICT (key) DO NOTHING`,
    [SECRET_SETTING, randomBytes(SECRET_BYTES).toString('base64url')],
  );
  const { rows } = await database.query<{ value: unknown }>(
    'SELECT value FROM settings WHERE key = $1',
    [SECRET_SETTING],
  );
  const value = rows[0]?.value;
  if (typeof value !== 'string' || value.length < 32) {
    throw new Error(`settings ${SECRET_SETTING} is not a secret jumpseat made; delete the row`);
  }
  return Buffer.from(value, 'base64url');
}

export class PostgresTicketUses implements TicketUses {
  #swept = 0;

  constructor(private readonly database: PostgresDatabase) {}

  async claim(nonce: string, expiresAt: number): Promise<boolean> {
    try {
      await this.#sweep();
      const result = await this.database.query(
        'INSERT INTO live_ticket_uses (nonce, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [nonce, new Date(expiresAt)],
      );
      return result.rowCount === 1;
    } catch (error) {
      if (unavailableReason(error) === undefined) throw error;
      return true;
    }
  }

  async #sweep(): Promise<void> {
    const now = Date.now();
    if (now - this.#swept < SWEEP_INTERVAL_MS) return;
    this.#swept = now;
    await this.database.query('DELETE FROM live_ticket_uses WHERE expires_at < now()');
  }
}
