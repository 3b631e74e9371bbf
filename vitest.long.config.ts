import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// The suites that mostly wait (a call of minutes): `npm test` starts them first and lets them
// run beside the others, so their minutes are not added to the run's. Everything else is the
// main config's (mergeConfig would add the main suite's files to these).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['server/**/*.long.test.ts'],
    exclude: ['**/node_modules/**'],
    maxWorkers: 1,
    // It needs neither pwsh nor dist/, and must not compile dist/ while the main suite may.
    globalSetup: [],
    reporters: ['default'],
  },
});
