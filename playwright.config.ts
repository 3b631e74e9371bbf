import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from './e2e/support/chromium.ts';

// Browser tests: real server (started once by the global setup), real bash, Debian Chromium.
// Without a Chromium the suite is skipped with one line, except under CI=true where that
// is an error: CI must never pass without having run the browser tests.
const chromium = findChromium();
const ci = process.env.CI === 'true' || process.env.CI === '1';
if (chromium === undefined) {
  const given = process.env.JUMPSEAT_CHROMIUM;
  const why = given
    ? `JUMPSEAT_CHROMIUM=${given} does not exist`
    : 'no Chromium found (install Debian\'s "chromium" package: apt-get install -y chromium, or set JUMPSEAT_CHROMIUM)';
  if (ci) throw new Error(`e2e: ${why}; CI=true, so this fails the run`);
  process.stdout.write(`e2e: NOT RUN — ${why}\n`);
}
const screenshots = process.env.JUMPSEAT_SCREENSHOTS === '1';

export default defineConfig({
  testDir: 'e2e',
  // Without a browser nothing matches, and `--pass-with-no-tests` makes that a clean skip.
  testMatch: chromium === undefined ? [] : screenshots ? 'screenshots.ts' : '**/*.spec.ts',
  globalSetup: chromium === undefined ? undefined : './e2e/support/global-setup.ts',
  workers: 2,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  forbidOnly: ci,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    launchOptions: { executablePath: chromium, args: CHROMIUM_ARGS },
    trace: 'retain-on-failure',
  },
  projects: [{ name: screenshots ? 'screenshots' : 'e2e' }],
});
