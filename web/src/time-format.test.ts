import { describe, expect, it } from 'vitest';
import { formatDuration, formatElapsed } from './time-format.ts';

describe('formatDuration', () => {
  it.each([
    [0, '0 ms'],
    [850, '850 ms'],
    [4_200, '4.2 s'],
    [42_000, '42 s'],
    [185_000, '3 m 05 s'],
    [7_620_000, '2 h 07 m'],
  ])('%d ms reads %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatElapsed', () => {
  it('counts whole seconds since the instant', () => {
    const since = '2026-01-01T00:00:00.000Z';
    expect(formatElapsed(since, Date.parse(since) + 3_900)).toBe('3 s');
    expect(formatElapsed(since, Date.parse(since) + 65_000)).toBe('1 m 05 s');
  });

  it('is empty for a time it cannot read', () => {
    expect(formatElapsed('soon', 0)).toBe('');
  });
});
