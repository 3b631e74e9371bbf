/**
 * A page's loads while the server cannot be reached (it restarts, the network dropped): the
 * page says "Reconnecting…" and tries again with growing pauses, capped, for as long as it
 * takes, then carries on as if the first try had worked. Refusals (not logged in, no such
 * shell) are answers, not outages: they end the waiting at once.
 */
import { jitteredPauseMs } from '../../shared/src/backoff.ts';
import type { PageFrame } from './page-frame.ts';

/**
 * Ceilings of the pauses between tries (each pause is jittered under its ceiling); the last
 * repeats. Short first: most outages are a restart.
 */
const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000, 5000] as const;

/**
 * Runs `load` until `away(result)` is false, showing the outage on the page's frame
 * meanwhile (what the frame showed before comes back after it).
 */
export async function loadWhenReachable<T>(
  frame: PageFrame,
  load: () => Promise<T>,
  away: (result: T) => boolean,
): Promise<T> {
  for (let failures = 0; ; failures++) {
    const result = await load();
    if (!away(result)) {
      frame.setAway(false);
      return result;
    }
    frame.setAway(true);
    await new Promise((resolve) => setTimeout(resolve, jitteredPauseMs(RETRY_DELAYS_MS, failures)));
  }
}
