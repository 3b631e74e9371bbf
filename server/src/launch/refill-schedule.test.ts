import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REFILL_AFTER_TAKE_MS, RefillSchedule } from './refill-schedule.ts';

describe('RefillSchedule', () => {
  let fills: number;
  let schedule: RefillSchedule;

  beforeEach(() => {
    vi.useFakeTimers();
    fills = 0;
    schedule = new RefillSchedule(() => fills++);
  });
  afterEach(() => {
    schedule.close();
    vi.useRealTimers();
  });

  it('fills after a take once the shell settles, not before', () => {
    schedule.afterTake();
    expect(schedule.pending).toBe(true);
    vi.advanceTimersByTime(REFILL_AFTER_TAKE_MS - 1);
    expect(fills).toBe(0);
    schedule.shellSettled();
    expect(fills).toBe(1);
    expect(schedule.pending).toBe(false);
    // Nothing left to fire.
    vi.advanceTimersByTime(REFILL_AFTER_TAKE_MS);
    expect(fills).toBe(1);
  });

  it('fills after a take at the latest when the shell never settles', () => {
    schedule.afterTake();
    vi.advanceTimersByTime(REFILL_AFTER_TAKE_MS);
    expect(fills).toBe(1);
    // A late settle fills nothing more.
    schedule.shellSettled();
    expect(fills).toBe(1);
  });

  it('does not cut short the wait after a failure', () => {
    schedule.later(5000);
    schedule.afterTake();
    schedule.shellSettled();
    expect(fills).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(fills).toBe(1);
  });

  it('fills nothing once closed', () => {
    schedule.afterTake();
    schedule.close();
    vi.advanceTimersByTime(REFILL_AFTER_TAKE_MS);
    schedule.later(1);
    vi.advanceTimersByTime(10);
    expect(fills).toBe(0);
  });
});
