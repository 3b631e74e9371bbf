/**
 * Durations as people read them on the dashboard and in the call timeline, and the ticking
 * elapsed-time clocks both pages show.
 */

const SECOND_MS = 1000;
const MINUTE_S = 60;
const HOUR_S = 3600;
/** How often elapsed times are redrawn: they show whole seconds. */
const CLOCK_TICK_MS = 1000;

/** `850 ms`, `4.2 s`, `3 m 05 s`, `2 h 07 m`. */
export function formatDuration(ms: number): string {
  if (ms < SECOND_MS) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = ms / SECOND_MS;
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  const whole = Math.floor(seconds);
  if (whole < MINUTE_S) return `${whole} s`;
  if (whole < HOUR_S) {
    return `${Math.floor(whole / MINUTE_S)} m ${String(whole % MINUTE_S).padStart(2, '0')} s`;
  }
  const minutes = Math.floor((whole % HOUR_S) / MINUTE_S);
  return `${Math.floor(whole / HOUR_S)} h ${String(minutes).padStart(2, '0')} m`;
}

/** Time since an ISO instant, whole seconds (a ticking clock should not flicker decimals). */
export function formatElapsed(sinceIso: string, now: number): string {
  const started = Date.parse(sinceIso);
  if (Number.isNaN(started)) return '';
  const ms = Math.max(0, now - started);
  return ms < 10 * SECOND_MS ? `${Math.floor(ms / SECOND_MS)} s` : formatDuration(ms);
}

/** `14:03:27` in the viewer's own time zone. */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString([], { hour12: false });
}

/**
 * Keeps every `[data-since]` element under `root` showing the time since that instant
 * (elements come and go: they are looked up on each tick). Returns what stops the clock.
 */
export function tickElapsedClocks(root: HTMLElement): () => void {
  const timer = setInterval(() => {
    const now = Date.now();
    for (const clock of root.querySelectorAll<HTMLElement>('[data-since]')) {
      clock.textContent = formatElapsed(clock.dataset.since ?? '', now);
    }
  }, CLOCK_TICK_MS);
  return () => clearInterval(timer);
}
