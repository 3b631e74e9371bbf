/**
 * Tickets for WebSocket upgrades from the page: a browser cannot put `Authorization` on a
 * WebSocket, and the browser credential must not travel in a URL (logs, history). So the page
 * asks for a ticket over an authenticated request and opens the socket with `?ticket=`; a
 * ticket works once, within a few seconds, and stands for the token it was asked with.
 *
 * A ticket is signed (HMAC-SHA256), not stored: `jst_<token id>.<expiry>.<nonce>.<mac>`. With
 * `--database` every replica signs with one secret kept in the database (live-ticket-uses.ts),
 * so a page may ask replica A and open its socket on replica B behind any load balancer, and
 * asking for a ticket writes nothing (a dashboard asks for one per socket, also while the
 * database is away). What a ticket stands for is checked again when it is used (a revoked
 * token's tickets fail then). Single use is kept by the nonces already used: in memory here,
 * and with `--database` claimed in the database too, so a ticket used on A fails on B.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TICKET_PREFIX = 'jst_';
/** Long enough for a page to open the socket right after asking; short so a leak is moot. */
export const TICKET_LIFETIME_MS = 30_000;
const NONCE_BYTES = 16;
/** Used nonces remembered here at most; past it the oldest go (they expire within seconds). */
const MAX_USED_NONCES = 100_000;

/** Where every replica records the tickets used (absent: this server alone). */
export interface TicketUses {
  /** True when `nonce` was not used before; true as well when it cannot tell (database away). */
  claim(nonce: string, expiresAt: number): Promise<boolean>;
}

export class LiveTickets {
  readonly #secret: Buffer;
  readonly #shared: TicketUses | undefined;
  /** Nonces used on this server, with when their tickets expire. */
  readonly #used = new Map<string, number>();

  /** `secret`: the one every replica signs with; a server alone makes its own. */
  constructor(secret: Buffer = randomBytes(32), shared?: TicketUses) {
    this.#secret = secret;
    this.#shared = shared;
  }

  issue(tokenId: string, now = Date.now()): string {
    const body = [
      Buffer.from(tokenId, 'utf8').toString('base64url'),
      (now + TICKET_LIFETIME_MS).toString(36),
      randomBytes(NONCE_BYTES).toString('base64url'),
    ].join('.');
    return `${TICKET_PREFIX}${body}.${this.#mac(body).toString('base64url')}`;
  }

  /** The token a ticket stands for, once: a second use, or a late one, gets undefined. */
  async redeem(ticket: string, now = Date.now()): Promise<string | undefined> {
    if (!ticket.startsWith(TICKET_PREFIX)) return undefined;
    const parts = ticket.slice(TICKET_PREFIX.length).split('.');
    if (parts.length !== 4) return undefined;
    const [id, expiry, nonce, mac] = parts as [string, string, string, string];
    const given = Buffer.from(mac, 'base64url');
    const expected = this.#mac(`${id}.${expiry}.${nonce}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const expiresAt = Number.parseInt(expiry, 36);
    if (!(expiresAt > now) || this.#used.has(nonce)) return undefined;
    this.#remember(nonce, expiresAt, now);
    if (this.#shared !== undefined && !(await this.#shared.claim(nonce, expiresAt))) {
      return undefined;
    }
    return Buffer.from(id, 'base64url').toString('utf8');
  }

  #mac(body: string): Buffer {
    return createHmac('sha256', this.#secret).update(body).digest();
  }

  #remember(nonce: string, expiresAt: number, now: number): void {
    for (const [used, until] of this.#used) {
      if (until <= now || this.#used.size >= MAX_USED_NONCES) this.#used.delete(used);
      else break;
    }
    this.#used.set(nonce, expiresAt);
  }
}
