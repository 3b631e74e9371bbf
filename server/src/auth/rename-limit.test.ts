import { describe, expect, it } from 'vitest';
import { RENAME_BURST, RENAME_REFILL_MS, RenameLimit, takeRename } from './rename-limit.ts';

/** Takes `count` renames at `now`, each from what the one before left. */
function takeMany(count: number, now: number, from?: { tokens: number; at: number }) {
  let current = from;
  const results = [];
  for (let i = 0; i < count; i++) {
    const taken = takeRename(current, now);
    results.push(taken);
    if ('left' in taken) current = taken.left;
  }
  return { results, current };
}

describe('takeRename', () => {
  it('allows the burst at once, then refuses with the wait until the next one is earned', () => {
    const { results, current } = takeMany(RENAME_BURST + 1, 1_000_000);
    expect(results.slice(0, RENAME_BURST).every((r) => 'left' in r)).toBe(true);
    expect(results[RENAME_BURST]).toEqual({ waitMs: RENAME_REFILL_MS });
    expect(current).toEqual({ tokens: 0, at: 1_000_000 });
    expect(takeRename(current, 1_000_000 + 2000)).toEqual({ waitMs: RENAME_REFILL_MS - 2000 });
  });

  it('earns one rename per refill period and keeps the time already earned towards the next', () => {
    const empty = { tokens: 0, at: 0 };
    const later = takeRename(empty, RENAME_REFILL_MS + 1500);
    expect(later).toEqual({ left: { tokens: 0, at: RENAME_REFILL_MS } });
    if (!('left' in later)) throw new Error('refused');
    expect(takeRename(later.left, 2 * RENAME_REFILL_MS - 1)).toEqual({ waitMs: 1 });
    expect(takeRename(later.left, 2 * RENAME_REFILL_MS)).toEqual({
      left: { tokens: 0, at: 2 * RENAME_REFILL_MS },
    });
  });

  it('never holds more than the burst, however long the token was idle', () => {
    const { results } = takeMany(RENAME_BURST + 1, 10 ** 12, { tokens: 0, at: 0 });
    expect(results.filter((r) => 'left' in r)).toHaveLength(RENAME_BURST);
  });

  it('earns nothing, and allows nothing extra, when the clock goes back', () => {
    const spent = { tokens: 0, at: 50_000 };
    expect(takeRename(spent, 10_000)).toEqual({ waitMs: 50_000 - 10_000 + RENAME_REFILL_MS });
    expect(takeRename({ tokens: 2, at: 50_000 }, 10_000)).toEqual({
      left: { tokens: 1, at: 50_000 },
    });
  });
});

describe('RenameLimit', () => {
  it('keeps one allowance per token and refuses with 429 RATE_LIMITED and Retry-After', async () => {
    const limit = new RenameLimit();
    for (let i = 0; i < RENAME_BURST; i++) await limit.take('a', 0);
    await expect(limit.take('a', 0)).rejects.toMatchObject({
      retryAfterSeconds: RENAME_REFILL_MS / 1000,
      message: expect.stringMatching(/^too many renames: .* try again in 5 s$/),
    });
    await expect(limit.take('b', 0)).resolves.toBeUndefined();
    await expect(limit.take('a', RENAME_REFILL_MS)).resolves.toBeUndefined();
  });
});
