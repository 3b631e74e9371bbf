import { describe, expect, it } from 'vitest';
import type { AuthEvent } from '../auth/auth-events.ts';
import { AuditGatherer, MANY_ADDRESSES, MAX_GATHERED_REFUSAL_ROWS } from './audit-gatherer.ts';

const refused = (address: string, status: 401 | 403 = 401): AuthEvent => ({
  kind: 'refused',
  status,
  reason: 'the token is not valid',
  address,
  method: 'GET',
  url: '/api/sessions',
  tokenId: null,
  name: null,
});

const MINUTE = new Date('2026-01-31T12:00:10.000Z');
const NEXT_MINUTE = new Date('2026-01-31T12:01:00.000Z');

describe('AuditGatherer', () => {
  it('counts refusals into one row per status, address and minute', () => {
    const gatherer = new AuditGatherer();
    for (let i = 0; i < 50; i++) gatherer.add(refused('10.0.0.1'), MINUTE);
    gatherer.add(refused('10.0.0.1', 403), MINUTE);
    gatherer.add(refused('10.0.0.2'), MINUTE);
    gatherer.add(refused('10.0.0.1'), NEXT_MINUTE);
    const rows = gatherer.take();
    expect(rows.map((r) => [r.event.kind === 'refused' && r.event.address, r.count])).toEqual([
      ['10.0.0.1', 50],
      ['10.0.0.1', 1],
      ['10.0.0.2', 1],
      ['10.0.0.1', 1],
    ]);
    expect(rows[0]?.bucket).toBe('401 10.0.0.1 2026-01-31T12:00:00.000Z');
    expect(gatherer.take()).toEqual([]);
  });

  it('counts refusals from past MAX_GATHERED_REFUSAL_ROWS addresses into one row', () => {
    const gatherer = new AuditGatherer();
    const extra = 500;
    for (let i = 0; i < MAX_GATHERED_REFUSAL_ROWS + extra; i++) {
      gatherer.add(refused(`10.1.${Math.floor(i / 256)}.${i % 256}`), MINUTE);
    }
    expect(gatherer.size).toBe(MAX_GATHERED_REFUSAL_ROWS + 1);
    const rows = gatherer.take();
    const many = rows.find((r) => r.event.kind === 'refused' && r.event.address === MANY_ADDRESSES);
    expect(many?.count).toBe(extra);
    expect(rows.reduce((sum, r) => sum + (r.count ?? 1), 0)).toBe(
      MAX_GATHERED_REFUSAL_ROWS + extra,
    );
  });
});
