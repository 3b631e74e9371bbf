/**
 * Vitest global set-up: compiles the server, CLI and client into dist/, and builds the web app
 * into dist/web, when a source is newer (as `npm start` and bin/jumpseat.js do), once before
 * any test runs, so the tests that start the real `jumpseat` command run the code under test,
 * never race to rebuild it, and never see its build's notice on their stderr (a test of a
 * clean stop reads it: run without the web step before it, it saw "building the web app").
 */
import { buildIfStale } from '../../../scripts/build-if-stale.mjs';

export default async function compileIfStale(): Promise<void> {
  await buildIfStale({ js: true, web: true });
}
