/**
 * Vitest global set-up: compiles the server, CLI and client into dist/ when a source is newer
 * (as `npm start` and bin/jumpseat.js do), once before any test runs, so the tests that start
 * the real `jumpseat` command run the code under test, and never race to rebuild it.
 */
import { buildIfStale } from '../../../scripts/build-if-stale.mjs';

export default async function compileIfStale(): Promise<void> {
  await buildIfStale({ js: true });
}
