import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { LookAgain } from './end-doubt.ts';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

it('looks once at each step after an end', () => {
  const look = vi.fn();
  new LookAgain(look).afterEnd();
  const steps = LookAgain.STEPS_MS;
  let at = 0;
  for (const [i, step] of steps.entries()) {
    vi.advanceTimersByTime(step - at - 2);
    expect(look).toHaveBeenCalledTimes(i);
    vi.advanceTimersByTime(2);
    expect(look).toHaveBeenCalledTimes(i + 1);
    at = step;
  }
  vi.advanceTimersByTime(60_000);
  expect(look).toHaveBeenCalledTimes(steps.length);
});

it('starts the series again from a later end, with one timer', () => {
  const look = vi.fn();
  const again = new LookAgain(look);
  const [first = 0, second = 0] = LookAgain.STEPS_MS;
  again.afterEnd();
  vi.advanceTimersByTime(first - 10);
  again.afterEnd(); // the next call ended before the first look
  expect(vi.getTimerCount()).toBe(1);
  vi.advanceTimersByTime(10);
  expect(look).toHaveBeenCalledTimes(0); // the first look is the later end's
  vi.advanceTimersByTime(first - 10);
  expect(look).toHaveBeenCalledTimes(1);
  vi.advanceTimersByTime(second - first);
  expect(look).toHaveBeenCalledTimes(2);
});

it('stops looking when stopped', () => {
  const look = vi.fn();
  const again = new LookAgain(look);
  again.afterEnd();
  again.stop();
  vi.advanceTimersByTime(60_000);
  expect(look).not.toHaveBeenCalled();
  expect(vi.getTimerCount()).toBe(0);
});
