import { defineConfig } from '@playwright/test';
import { systemChromium } from 'jumpseat/playwright';

export default defineConfig({
  testDir: 'tests',
  reporter: [['list'], ['html', { open: 'never' }]],
  use: {
    // The machine's Chromium (Debian: apt-get install chromium), for where
    // `npx playwright install` cannot download one. Drop it to use Playwright's browsers.
    ...systemChromium(),
    trace: 'retain-on-failure',
  },
});
