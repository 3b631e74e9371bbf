import { describe, expect, it } from 'vitest';
import { jitteredPauseMs } from './backoff.ts';

const CEILINGS = [100, 500, 1000] as const;

describe('jitteredPauseMs', () => {
  it('draws the pause from zero up to the ceiling for the failures so far', () => {
    expect(jitteredPauseMs(CEILINGS, 0, () => 0)).toBe(0);
    expect(jitteredPauseMs(CEILINGS, 0, () => 0.5)).toBe(50);
    expect(jitteredPauseMs(CEILINGS, 1, () => 0.999)).toBe(499);
    expect(jitteredPauseMs(CEILINGS, 2, () => 0.25)).toBe(250);
  });

  it('repeats the last ceiling once the failures outgrow the list', () => {
    expect(jitteredPauseMs(CEILINGS, 9, () => 0.5)).toBe(500);
  });

  it('spreads clients that failed together instead of pausing them alike', () => {
    const pauses = new Set(Array.from({ length: 50 }, () => jitteredPauseMs(CEILINGS, 2)));
    expect(pauses.size).toBeGreaterThan(10);
    for (const pause of pauses) {
      expect(pause).toBeGreaterThanOrEqual(0);
      expect(pause).toBeLessThan(1000);
    }
  });
});
