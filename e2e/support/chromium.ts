/**
 * Which Chromium the e2e suite drives: `JUMPSEAT_CHROMIUM`, else Debian's `chromium`
 * package. Playwright's own browser download is not used (it needs network access).
 */
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Flags for a headless browser in a container: no sandbox (no user namespaces), no GPU. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.JUMPSEAT_CHROMIUM;
  if (given !== undefined && given !== '') return existsSync(given) ? given : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}
