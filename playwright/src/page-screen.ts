/**
 * The terminal text of a jumpseat page open in Playwright (a shell's live page after
 * `shell.watch(page)`, or a replay): the web app's `window.jumpseat.terminalText()`.
 */
import type { Page } from '@playwright/test';

interface JumpseatPageHooks {
  readonly jumpseat: { terminalText(): string };
}

/** One line per row (a wrapped line joined), trailing blanks trimmed. */
export function terminalText(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as JumpseatPageHooks).jumpseat.terminalText());
}
