/**
 * `window.jumpseat`: what the page offers scripts and Playwright tests. `terminalText()` is
 * stable (README, "Testing with Playwright"); the rest serves jumpseat's own e2e suite.
 */
export interface JumpseatHooks {
  /** The terminal's screen (its last `rows` lines) as text, trailing blanks trimmed per line. */
  terminalText(): string;
  /** Scrollback and screen as text. */
  bufferText(): string;
  /** Test-only: drops the live connection as a network failure would; returns the position. */
  dropConnection(): number | null;
  /** Test-only: the display-stream offset the page has shown up to. */
  position(): number | null;
  /** On a replay page (`/sessions/:id/replay`): its player (README, "History and replay"). */
  replay?: ReplayHooks;
}

/** The replay player, on its playback clock (milliseconds, idle stretches shortened). */
export interface ReplayHooks {
  position(): number;
  duration(): number;
  state(): 'paused' | 'playing' | 'ended';
  /** Shows the screen as it was at `ms`. */
  seek(ms: number): void;
  play(): void;
  pause(): void;
  /** Where each call (oldest first, as `GET /api/sessions/:id/calls` lists them) starts. */
  callStarts(): number[];
}

declare global {
  interface Window {
    jumpseat: JumpseatHooks;
  }
}
