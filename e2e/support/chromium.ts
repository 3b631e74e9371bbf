/**
 * Which Chromium the e2e suite drives: `JUMPSEAT_CHROMIUM`, else Debian's `chromium`
 * package (Playwright's own browser download needs network access). The same lookup test
 * authors get from `jumpseat/playwright`.
 */
export { CHROMIUM_ARGS, findChromium } from '../../playwright/src/system-browser.ts';
