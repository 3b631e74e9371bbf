import { availableParallelism } from 'node:os';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// `npm test` exports npm_package_bin_jumpseat (the package has a bin). It is no secret, but
// the shell-environment tests look for any variable naming jumpseat, so the shells must not
// inherit it from the test process.
delete process.env.npm_package_bin_jumpseat;

/** `jumpseat/client` resolves to its TypeScript source in tests (package.json "exports"). */
const SOURCE_CONDITIONS = ['jumpseat-source', ...defaultServerConditions];

// Server and shared tests run in child processes (node-pty is a native addon and real
// shells are started); browser tests live in e2e/ and run under Playwright.
export default defineConfig({
  resolve: { conditions: SOURCE_CONDITIONS },
  ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
  test: {
    include: [
      'server/**/*.test.ts',
      'shared/**/*.test.ts',
      'web/**/*.test.ts',
      'playwright/**/*.test.ts',
      'deploy/**/*.test.ts',
    ],
    // Calls of minutes (`*.long.test.ts`) run beside this suite, under vitest.long.config.ts.
    exclude: ['**/node_modules/**', '**/*.long.test.ts'],
    pool: 'forks',
    // Vitest's default is one fork fewer than the CPUs: a single fork on a 2-core CI box, where
    // the suite then takes 18 minutes, most of it waiting on shells, servers and npm. Two forks
    // at least (the tests hold under two CPU hogs, so a busy neighbour is no excuse to fail).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './server/test/support/summary-reporter.ts'],
    // Says once whether the pwsh suites run (and fails a CI run without pwsh); compiles dist/
    // when stale, for the tests that run the real jumpseat command; gives the run a data home
    // of its own (the default workspace root of servers started without --workspace).
    globalSetup: [
      './server/test/support/run-data-home.ts',
      './server/test/support/pwsh-check.ts',
      './server/test/support/compiled-check.ts',
      './server/test/support/postgres-check.ts',
    ],
  },
});
