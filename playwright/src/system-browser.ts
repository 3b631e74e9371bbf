/**
 * The Chromium already on the machine (Debian's `chromium` package, or `JUMPSEAT_CHROMIUM`),
 * for a Playwright config where `npx playwright install` cannot download a browser.
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

/** `JUMPSEAT_CHROMIUM` when it exists, else the first system Chromium found, else undefined. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.JUMPSEAT_CHROMIUM;
  if (given !== undefined && given !== '') return existsSync(given) ? given : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}

export interface SystemChromiumUse {
  readonly browserName: 'chromium';
  readonly launchOptions: { readonly executablePath: string; readonly args: string[] };
}

/**
 * `use` settings that launch the system Chromium: `use: { ...systemChromium() }` in
 * `playwright.config.ts`. Throws, saying what to install, when there is none.
 */
export function systemChromium(env: NodeJS.ProcessEnv = process.env): SystemChromiumUse {
  const executablePath = findChromium(env);
  if (executablePath === undefined) {
    const given = env.JUMPSEAT_CHROMIUM;
    throw new Error(
      given
        ? `JUMPSEAT_CHROMIUM=${given} does not exist`
        : `no Chromium found at ${CANDIDATES.join(', ')}: install one (Debian: apt-get install -y chromium) or set JUMPSEAT_CHROMIUM`,
    );
  }
  return { browserName: 'chromium', launchOptions: { executablePath, args: [...CHROMIUM_ARGS] } };
}
