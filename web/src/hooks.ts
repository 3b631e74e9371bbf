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
}

declare global {
  interface Window {
    jumpseat: JumpseatHooks;
  }
}
