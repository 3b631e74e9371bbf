/**
 * Looks again and again until `done()` holds or `limitMs` passes; whether it held. For tests
 * that count what did not happen in time (a round lost) instead of failing at the first.
 */
export async function until(done: () => boolean, limitMs: number, stepMs = 1): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return true;
}
