import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { NeedsHuman } from './needs-human.ts';

const base: SessionInfo = {
  id: 's1',
  agent: 'a1',
  owner: null,
  dialect: 'bash',
  state: 'waiting_input',
  command: 'read x',
  since: '2026-01-01T00:00:00.000Z',
  stateSince: '2026-01-01T00:00:10.000Z',
  lastExitCode: null,
  pid: 1,
  cols: 120,
  rows: 40,
  controller: null,
  viewers: 0,
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: null,
  ending: null,
};
const at = (iso: string): number => Date.parse(iso);

describe('NeedsHuman', () => {
  const needs = new NeedsHuman(2000, 0);

  it('is false while a shell has waited less than the threshold, true from it on', () => {
    expect(needs.test(base, at('2026-01-01T00:00:11.999Z'))).toBe(false);
    expect(needs.test(base, at('2026-01-01T00:00:12.000Z'))).toBe(true);
  });

  it('is false for any state but waiting for input', () => {
    expect(needs.test({ ...base, state: 'running' }, at('2026-01-01T01:00:00Z'))).toBe(false);
  });

  it('times the wait on the server clock', () => {
    const ahead = NeedsHuman.from(
      {
        needsHumanAfterMs: 2000,
        publicUrl: null,
        serverTime: '2026-01-01T00:00:13.000Z',
        localShells: true,
      },
      at('2026-01-01T00:00:10.000Z'),
    );
    expect(ahead.test(base, at('2026-01-01T00:00:10.000Z'))).toBe(true);
  });

  it('says when the next waiting shell starts to need a human', () => {
    const later = { ...base, id: 's2', stateSince: '2026-01-01T00:00:11.000Z' };
    expect(needs.nextChangeIn([base, later], at('2026-01-01T00:00:10.500Z'))).toBe(1500);
    expect(needs.nextChangeIn([base], at('2026-01-01T00:00:13.000Z'))).toBeNull();
  });
});
