import { describe, expect, it } from 'vitest';
import type { CallInfo } from '../../../shared/src/api.ts';
import type { AuditRow, WriteBatch } from './history-store.ts';
import { RowBacklog } from './row-backlog.ts';

const call = (i: number): CallInfo => ({
  id: `c${i}`,
  sessionId: 's1',
  command: `echo ${i}`,
  output: 'x'.repeat(1000),
  exitCode: 0,
  outcome: 'completed',
  startedAt: new Date(i * 1000).toISOString(),
  durationMs: 1,
});

const audit = (i: number): AuditRow => ({
  at: new Date(i).toISOString(),
  event: { kind: 'named', tokenId: `t${i}`, name: 'n' },
});

const batch = (calls: number, audits: number): WriteBatch => ({
  shells: [],
  calls: Array.from({ length: calls }, (_, i) => call(i)),
  controls: [],
  audits: Array.from({ length: audits }, (_, i) => audit(i)),
});

describe('RowBacklog', () => {
  it('keeps everything under its bound, and serves the kept calls', () => {
    const backlog = new RowBacklog(1_000_000);
    backlog.add(batch(10, 10));
    expect(backlog.report()).toMatchObject({ keptItems: 20, droppedItems: 0 });
    expect(backlog.callsOf('s1').map((c) => c.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `c${i}`),
    );
    backlog.add(batch(1, 0));
    expect(backlog.take().calls).toHaveLength(11);
    expect(backlog.empty).toBe(true);
    // In flight: still served, still counted, until it lands.
    expect(backlog.callsOf('s1')).toHaveLength(11);
    expect(backlog.report().keptItems).toBe(21);
    backlog.landed();
    expect(backlog.report()).toMatchObject({ keptItems: 0, keptBytes: 0 });
  });

  it('a write that fails puts its rows back before those gathered meanwhile', () => {
    const backlog = new RowBacklog(1_000_000);
    backlog.add(batch(2, 0));
    backlog.take();
    backlog.add({ ...batch(0, 0), calls: [{ ...call(7), id: 'later' }] });
    backlog.putBack();
    expect(backlog.callsOf('s1').map((c) => c.id)).toEqual(['c0', 'c1', 'later']);
    expect(backlog.take().calls.map((c) => c.id)).toEqual(['c0', 'c1', 'later']);
  });

  it('past its bound drops audit rows first, then the oldest calls', () => {
    // Room for about five calls of 1,000 characters (each counted at 2 bytes a character).
    const backlog = new RowBacklog(11_100);
    backlog.add(batch(10, 10));
    const report = backlog.report();
    expect(report.keptBytes).toBeLessThanOrEqual(11_100);
    expect(report.droppedItems).toBe(10 + 5);
    expect(backlog.callsOf('s1').map((c) => c.id)).toEqual(['c5', 'c6', 'c7', 'c8', 'c9']);
    expect(backlog.take().audits).toEqual([]);
  });
});
