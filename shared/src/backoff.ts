/**
 * Pauses between reconnection attempts, with full jitter: each pause is drawn uniformly from
 * zero up to a ceiling that grows with the failures in a row. Fixed pauses bring every
 * client dropped by one restart back in lock-step (300 dashboards in the same millisecond,
 * again at each step); a random pause under the ceiling spreads them over it ("full jitter"
 * in the AWS Architecture Blog's "Exponential Backoff And Jitter"). Used by the web app's
 * sockets and page loads and by the client's watch, so they back off alike.
 */

/**
 * The pause before the next attempt after `failures` failed ones in a row: at most
 * `ceilingsMs[failures]` (the last ceiling repeats), and at least 0. `random` is in [0, 1).
 */
export function jitteredPauseMs(
  ceilingsMs: readonly number[],
  failures: number,
  random: () => number = Math.random,
): number {
  const ceiling = ceilingsMs[Math.min(Math.max(failures, 0), ceilingsMs.length - 1)] ?? 0;
  return Math.floor(random() * ceiling);
}
