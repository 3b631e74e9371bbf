// @ts-check
/**
 * Rebuilds what a checkout runs when it is missing or older than its sources, so a fresh
 * clone or a `git pull` never runs stale code, and an unchanged tree starts without paying for
 * a build: the JavaScript of the server, CLI and client (`tsc -p tsconfig.build.json` into
 * dist/) and the web app (`vite build` into dist/web). `npm start` runs it first
 * (`node scripts/build-if-stale.mjs`), and so does `jumpseat` from a checkout. An installed
 * package has no sources and ships its build: there, nothing is ever rebuilt.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** What dist/web is made of. */
const WEB_SOURCES = ['web', 'shared/src', 'vite.config.ts', 'package-lock.json'];
const WEB_BUILT = join(root, 'dist', 'web', 'index.html');
/** What the compiled JavaScript is made of. */
const JS_SOURCES = [
  'server/src',
  'client/src',
  'playwright/src',
  'shared/src',
  'tsconfig.build.json',
  'tsconfig.base.json',
  'package-lock.json',
];
/** Touched after each successful JavaScript build. */
const JS_BUILT = join(root, 'dist', '.js-built');

/** @param {string} path @returns {number} the newest modification time under path (ms) */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return path.endsWith('.test.ts') ? 0 : stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.endsWith('.tsbuildinfo')) continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

/** @param {string} built @param {string[]} sources */
function stale(built, sources) {
  let builtAt = 0;
  try {
    builtAt = statSync(built).mtimeMs;
  } catch {
    // Never built.
  }
  return builtAt < Math.max(...sources.map((source) => newest(join(root, source))));
}

/**
 * Builds what is stale; a no-op outside a checkout.
 * @param {{ js?: boolean, web?: boolean }} what
 */
export async function buildIfStale(what = { js: true, web: true }) {
  if (!existsSync(join(root, 'server', 'src'))) return;
  if (what.js === true && stale(JS_BUILT, JS_SOURCES)) {
    process.stderr.write('jumpseat: compiling the server, CLI and client (tsc)…\n');
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
      stdio: 'inherit',
    });
    writeFileSync(JS_BUILT, `${new Date().toISOString()}\n`);
  }
  if (what.web === true && stale(WEB_BUILT, WEB_SOURCES)) {
    process.stderr.write('jumpseat: building the web app (vite build)…\n');
    const { build } = await import('vite');
    await build({
      root: join(root, 'web'),
      configFile: join(root, 'vite.config.ts'),
      logLevel: 'warn',
    });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const only = { js: args.includes('--js'), web: args.includes('--web') };
  await buildIfStale(only.js || only.web ? only : { js: true, web: true });
}
