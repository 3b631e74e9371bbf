// @ts-check
/**
 * `npm start` runs this first: builds the web app (`vite build` into dist/web) when it is
 * missing or older than its sources, so a fresh clone or a `git pull` never serves a stale
 * app, and an unchanged tree starts without paying for a build.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const builtIndex = join(root, 'dist', 'web', 'index.html');
/** What the built app is made of. */
const SOURCES = ['web', 'shared/src', 'vite.config.ts', 'package-lock.json'];

/** @param {string} path @returns {number} the newest modification time under path (ms) */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.endsWith('.tsbuildinfo')) continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

let builtAt = 0;
try {
  builtAt = statSync(builtIndex).mtimeMs;
} catch {
  // Never built.
}
const sourcesAt = Math.max(...SOURCES.map((source) => newest(join(root, source))));
if (builtAt < sourcesAt) {
  process.stdout.write('jumpseat: building the web app (vite build)…\n');
  const { build } = await import('vite');
  await build({
    root: join(root, 'web'),
    configFile: join(root, 'vite.config.ts'),
    logLevel: 'warn',
  });
}
