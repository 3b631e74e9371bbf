/**
 * Tickets for WebSocket upgrades from the page: a browser cannot put `Authorization` on a
 * WebSocket, and the browser credential must not travel in a URL (logs, history). So the page
 * asks for a ticket over an authenticated request and opens the socket with `?ticket=`; a
 * ticket works once, within a few seconds, and stands for the token it was asked with.
 */
import { randomBytes } from 'node:crypto';

export const TICKET_PREFIX = 'jst_';
/** Long enough for a page to open the socket right after asking; short so a leak is moot. */
export const TICKET_LIFETIME_MS = 30_000;
const TICKET_RANDOM_BYTES = 24;
/** Unused tickets kept at most; past it the oldest go (a page asking in a loop). */
const MAX_OPEN_TICKETS = 10_000;

interface Ticket {
  readonly tokenId: string;
  readonly expiresAt: number;
}

export class LiveTickets {
  readonly #open = new Map<string, Ticket>();

  issue(tokenId: string, now = Date.now()): string {
    this.#sweep(now);
    const ticket = TICKET_PREFIX + randomBytes(TICKET_RANDOM_BYTES).toString('base64url');
    this.#open.set(ticket, { tokenId, expiresAt: now + TICKET_LIFETIME_MS });
    return ticket;
  }

  /** The token a ticket stands for, once: a second use, or a late one, gets undefined. */
  redeem(ticket: string, now = Date.now()): string | undefined {
    const found = this.#open.get(ticket);
    if (found === undefined) return undefined;
    this.#open.delete(ticket);
    return found.expiresAt > now ? found.tokenId : undefined;
  }

  /** A revoked token's unused tickets stop working too. */
  endToken(tokenId: string): void {
    for (const [ticket, found] of this.#open)
      if (found.tokenId === tokenId) this.#open.delete(ticket);
  }

  #sweep(now: number): void {
    for (const [ticket, found] of this.#open) {
      if (found.expiresAt <= now || this.#open.size >= MAX_OPEN_TICKETS) this.#open.delete(ticket);
      else break;
    }
  }
}
