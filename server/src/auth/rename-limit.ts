/**
 * How often one token may change a display name: a few at once, then one every few seconds.
 * A link holder renaming in a loop gets 429 with the seconds to wait, and the audit and the
 * tokens file see a handful of names a minute, not thousands.
 */
import { JUMPSEAT_ERR_RATE_LIMITED, RetryLaterError } from '../errors.ts';

/** Renames one token may make in a burst (a person fixing a typo twice is fine). */
export const RENAME_BURST = 5;
/** Then one more every this many ms (12 a minute at most). */
export const RENAME_REFILL_MS = 5000;
/** Tokens whose allowance is tracked before the fullest-refilled are forgotten. */
const MAX_TRACKED_TOKENS = 10_000;

interface Allowance {
  tokens: number;
  at: number;
}

export class RenameLimit {
  private readonly allowances = new Map<string, Allowance>();

  /** Takes one rename of `tokenId`'s allowance, or throws 429 saying when to try again. */
  take(tokenId: string, now = Date.now()): void {
    const current = this.allowances.get(tokenId) ?? { tokens: RENAME_BURST, at: now };
    const refilled = Math.min(
      RENAME_BURST,
      current.tokens + Math.floor((now - current.at) / RENAME_REFILL_MS),
    );
    // Time already counted towards the next rename is kept, not reset.
    const at =
      refilled === RENAME_BURST ? now : current.at + (refilled - current.tokens) * RENAME_REFILL_MS;
    if (refilled < 1) {
      const waitMs = at + RENAME_REFILL_MS - now;
      throw new RetryLaterError(
        JUMPSEAT_ERR_RATE_LIMITED,
        `too many renames: a name may change ${RENAME_BURST} times at once, then once every ${RENAME_REFILL_MS / 1000} s; try again in ${Math.ceil(waitMs / 1000)} s`,
        Math.max(1, Math.ceil(waitMs / 1000)),
      );
    }
    this.allowances.delete(tokenId);
    if (this.allowances.size >= MAX_TRACKED_TOKENS) {
      const oldest = this.allowances.keys().next().value;
      if (oldest !== undefined) this.allowances.delete(oldest);
    }
    this.allowances.set(tokenId, { tokens: refilled - 1, at });
  }
}
