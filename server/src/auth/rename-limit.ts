/**
 * How often one token may change a display name: a few at once, then one every few seconds.
 * A link holder renaming in a loop gets 429 with the seconds to wait, and the audit and the
 * tokens file see a handful of names a minute, not thousands. One server keeps each token's
 * allowance in memory (RenameLimit); replicas keep it in PostgreSQL, so that N replicas do not
 * allow N times as many (rename-limit-postgres.ts). Both count with `takeRename`.
 */
import { JUMPSEAT_ERR_RATE_LIMITED, RetryLaterError } from '../errors.ts';

/** Renames one token may make in a burst (a person fixing a typo twice is fine). */
export const RENAME_BURST = 5;
/** Then one more every this many ms (12 a minute at most). */
export const RENAME_REFILL_MS = 5000;
/** Tokens whose allowance is tracked in memory before the least recently renamed is forgotten. */
const MAX_TRACKED_TOKENS = 10_000;

/** Renames left, and the time (ms) from which the next one is being earned. */
export interface Allowance {
  readonly tokens: number;
  readonly at: number;
}

/** Where each token's allowance is kept; `take` throws 429 (or 503: the database is away). */
export interface RenameAllowances {
  take(tokenId: string): Promise<void>;
}

/**
 * Takes one rename from `current` (undefined: never renamed) at `now`: the allowance left, or
 * the ms to wait for the next one.
 */
export function takeRename(
  current: Allowance | undefined,
  now: number,
): { left: Allowance } | { waitMs: number } {
  const was = current ?? { tokens: RENAME_BURST, at: now };
  // A clock that went back (another replica's, or the database's) earns nothing, and takes nothing.
  const earned = Math.max(0, Math.floor((now - was.at) / RENAME_REFILL_MS));
  const refilled = Math.min(RENAME_BURST, was.tokens + earned);
  // Time already counted towards the next rename is kept, not reset.
  const at = refilled === RENAME_BURST ? now : was.at + (refilled - was.tokens) * RENAME_REFILL_MS;
  if (refilled < 1) return { waitMs: Math.max(0, at + RENAME_REFILL_MS - now) };
  return { left: { tokens: refilled - 1, at } };
}

/** The 429 for a rename that must wait `waitMs`. */
export function renameRefused(waitMs: number): RetryLaterError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new RetryLaterError(
    JUMPSEAT_ERR_RATE_LIMITED,
    `too many renames: a name may change ${RENAME_BURST} times at once, then once every ${RENAME_REFILL_MS / 1000} s; try again in ${seconds} s`,
    seconds,
  );
}

/** One server's allowances, in memory. */
export class RenameLimit implements RenameAllowances {
  private readonly allowances = new Map<string, Allowance>();

  async take(tokenId: string, now = Date.now()): Promise<void> {
    const taken = takeRename(this.allowances.get(tokenId), now);
    if ('waitMs' in taken) throw renameRefused(taken.waitMs);
    this.allowances.delete(tokenId);
    if (this.allowances.size >= MAX_TRACKED_TOKENS) {
      const oldest = this.allowances.keys().next().value;
      if (oldest !== undefined) this.allowances.delete(oldest);
    }
    this.allowances.set(tokenId, taken.left);
  }
}
