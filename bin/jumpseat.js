#!/usr/bin/env node
// The `jumpseat` command: the CLI compiled to JavaScript (dist/), no TypeScript runtime. From a
// checkout, what is stale is rebuilt first (the JavaScript always; the web app for `serve`).
import { existsSync } from 'node:fs';

const checkout = existsSync(new URL('../server/src/cli/bin.ts', import.meta.url));
if (checkout) {
  const { buildIfStale } = await import('../scripts/build-if-stale.mjs');
  const [command, ...rest] = process.argv.slice(2);
  const help = rest.some((arg) => arg === '--help' || arg === '-h');
  await buildIfStale({ js: true, web: command === 'serve' && !help });
}
await import('../dist/server/src/cli/bin.js');
