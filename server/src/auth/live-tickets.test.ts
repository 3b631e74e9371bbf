import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LiveTickets, TICKET_LIFETIME_MS, type TicketUses } from './live-tickets.ts';

/** Nonces claimed by every replica, as the database's live_ticket_uses keeps them. */
function sharedUses(): TicketUses {
  const used = new Set<string>();
  return {
    claim: async (nonce) => {
      if (used.has(nonce)) return false;
      used.add(nonce);
      return true;
    },
  };
}

describe('live tickets', () => {
  it('stand for the token they were asked with, once', async () => {
    const tickets = new LiveTickets();
    const ticket = tickets.issue('token-1');
    expect(ticket).toMatch(/^jst_[A-Za-z0-9_-]+\.[0-9a-z]+\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect(await tickets.redeem(ticket)).toBe('token-1');
    expect(await tickets.redeem(ticket)).toBeUndefined();
  });

  it('stop working when their 30 s are over', async () => {
    const tickets = new LiveTickets();
    const now = Date.now();
    const ticket = tickets.issue('token-1', now);
    expect(await tickets.redeem(ticket, now + TICKET_LIFETIME_MS)).toBeUndefined();
  });

  it('refuse a ticket changed in any part, or signed with another secret', async () => {
    const tickets = new LiveTickets();
    const ticket = tickets.issue('token-1');
    const [id, expiry, nonce, mac] = ticket.slice(4).split('.') as [string, string, string, string];
    const forged = [
      `jst_${Buffer.from('admin').toString('base64url')}.${expiry}.${nonce}.${mac}`,
      `jst_${id}.${(Number.parseInt(expiry, 36) + 60_000).toString(36)}.${nonce}.${mac}`,
      `jst_${id}.${expiry}.${nonce}`,
      'jst_',
      new LiveTickets().issue('token-1'),
    ];
    for (const ticket of forged) expect(await tickets.redeem(ticket)).toBeUndefined();
    expect(await tickets.redeem(ticket)).toBe('token-1');
  });

  it('work on every replica that shares the secret, once across all of them', async () => {
    const secret = randomBytes(32);
    const uses = sharedUses();
    const [a, b] = [new LiveTickets(secret, uses), new LiveTickets(secret, uses)];
    const ticket = a.issue('token-1');
    expect(await b.redeem(ticket)).toBe('token-1');
    expect(await a.redeem(ticket)).toBeUndefined();
  });
});
