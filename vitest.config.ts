import { defineConfig } from 'vitest/config';

// Server and shared tests run in child processes (node-pty is a native addon and real
// shells are started); browser tests live in e2e/ and run under Playwright.
export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'shared/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './server/test/support/summary-reporter.ts'],
    // Says once whether the pwsh suites run (and fails a CI run without pwsh).
    globalSetup: ['./server/test/support/pwsh-check.ts'],
  },
});
