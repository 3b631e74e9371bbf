/**
 * `jumpseat/playwright`: Playwright's `test` and `expect`, extended for driving jumpseat
 * shells. A worker fixture `jumpseat` (a server of the worker's own, or the one
 * `JUMPSEAT_URL` + `JUMPSEAT_TOKEN` name), a test fixture `shell` (a fresh persistent shell,
 * bash unless `test.use({ dialect: 'pwsh' })`), `openShell()` for more, and the matchers
 * `toShowText` and `toMatchScreenSnapshot`. A failed test gets each shell's recording, calls
 * and screen attached to its report.
 */
import { dirname } from 'node:path';
import { test as base, expect as baseExpect, type FullConfig } from '@playwright/test';
import { JumpseatClient } from '../../client/src/index.ts';
import { fixtureAgentId } from './agent-name.ts';
import type { Dialect } from './client-types.ts';
import { attachShell } from './failure-attachments.ts';
import { FIXTURE_PROMPT } from './fixture-prompt.ts';
import { toMatchScreenSnapshot, toShowText } from './screen-matchers.ts';
import { JumpseatShell } from './test-shell.ts';
import { startWorkerServer } from './worker-server.ts';

export type { CallInfo, Dialect, SessionInfo } from './client-types.ts';
export { FIXTURE_PROMPT } from './fixture-prompt.ts';
export { terminalText } from './page-screen.ts';
export type { ScreenMask, ScreenRegion } from './screen-mask.ts';
export type { ScreenMatchOptions, ScreenSnapshotOptions } from './screen-matchers.ts';
export {
  CHROMIUM_ARGS,
  findChromium,
  type SystemChromiumUse,
  systemChromium,
} from './system-browser.ts';
export {
  JumpseatShell,
  type RunOptions,
  type ShellOptions,
  type WatchOptions,
} from './test-shell.ts';

/** The server the worker's tests use. */
export interface JumpseatServer {
  /** Its base URL, `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** A client holding the admin token (mint tokens, read shells, make calls). */
  readonly client: JumpseatClient;
  /** True when the server outlives the run (`JUMPSEAT_URL`): reports link to its replays. */
  readonly persistent: boolean;
  /** A URL that logs a browser in: as the admin, or with `token` (a person's, minted). */
  loginUrl(token?: string): string;
}

export interface OpenShellOptions {
  /** Default: the test's `dialect` option. */
  readonly dialect?: Dialect;
}

export interface JumpseatTestFixtures {
  /** `bash` (default) or `pwsh`, for `shell` and `openShell()`: `test.use({ dialect: 'pwsh' })`. */
  dialect: Dialect;
  /**
   * The prompt fixture shells show (`$ ` by default), set with a cleared screen before the
   * test's first call, so a screen snapshot is the same in every run; null keeps the shell's
   * own prompt (its working directory): `test.use({ shellPrompt: null })`.
   */
  shellPrompt: string | null;
  /** A fresh persistent shell of its own agent, started on first use, ended after the test. */
  shell: JumpseatShell;
  /** Another fresh shell (its own agent) for this test, ended after it. */
  openShell: (options?: OpenShellOptions) => Promise<JumpseatShell>;
}

export interface JumpseatWorkerFixtures {
  /** More command-line flags for the worker's own server (`['--timeout-ms', '5000']`). */
  jumpseatFlags: string[];
  /**
   * The worker's own server lets every shell read (not write) the project, the folder of
   * `playwright.config.ts`, at its own path (`--readable`): a test runs the project's
   * programs by their absolute path. Default true.
   */
  jumpseatReadableProject: boolean;
  jumpseat: JumpseatServer;
}

/** Starting a server (and stopping one) may take a while on a loaded machine. */
const SERVER_FIXTURE_TIMEOUT_MS = 120_000;

/** The folder of `playwright.config.ts` (else the test directory, without a config file). */
function projectDir(config: FullConfig): string {
  return config.configFile === undefined ? config.rootDir : dirname(config.configFile);
}

function givenServer(): { url: string; token: string } | undefined {
  const url = process.env.JUMPSEAT_URL;
  const token = process.env.JUMPSEAT_TOKEN;
  if (!url && !token) return undefined;
  if (!url || !token) {
    throw new Error(
      'jumpseat/playwright: set both JUMPSEAT_URL and JUMPSEAT_TOKEN (an admin token) to use a running server, or neither to have each worker start its own',
    );
  }
  return { url: url.replace(/\/+$/, ''), token };
}

function server(url: string, token: string, persistent: boolean): JumpseatServer {
  return {
    url,
    client: new JumpseatClient({ url, token }),
    persistent,
    loginUrl: (as = token) => `${url}/login?token=${encodeURIComponent(as)}`,
  };
}

export const test = base.extend<JumpseatTestFixtures, JumpseatWorkerFixtures>({
  jumpseatFlags: [[], { scope: 'worker', option: true }],
  jumpseatReadableProject: [true, { scope: 'worker', option: true }],
  jumpseat: [
    async ({ jumpseatFlags, jumpseatReadableProject }, use, workerInfo) => {
      const given = givenServer();
      if (given !== undefined) {
        await use(server(given.url, given.token, true));
        return;
      }
      const own = await startWorkerServer([
        ...(jumpseatReadableProject ? ['--readable', projectDir(workerInfo.config)] : []),
        ...jumpseatFlags,
      ]);
      try {
        await use(server(own.url, own.token, false));
      } finally {
        await own.stop();
      }
    },
    { scope: 'worker', timeout: SERVER_FIXTURE_TIMEOUT_MS },
  ],
  dialect: ['bash', { option: true }],
  shellPrompt: [FIXTURE_PROMPT, { option: true }],
  openShell: async ({ jumpseat, dialect, shellPrompt }, use, testInfo) => {
    const shells: JumpseatShell[] = [];
    await use(async (options = {}) => {
      const shell = new JumpseatShell(
        jumpseat,
        fixtureAgentId(testInfo, shells.length, jumpseat.persistent),
        options.dialect ?? dialect,
        { prompt: shellPrompt },
      );
      shells.push(shell);
      return shell;
    });
    if (testInfo.status !== testInfo.expectedStatus) {
      const replays = jumpseat.persistent ? jumpseat.url : undefined;
      for (const [index, shell] of shells.entries()) {
        await attachShell(testInfo, shell, index === 0 ? 'shell' : `shell-${index + 1}`, replays);
      }
    }
    const closing = await Promise.allSettled(shells.map((shell) => shell.dispose()));
    const failed = closing.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  },
  shell: async ({ openShell }, use) => use(await openShell()),
});

export const expect = baseExpect.extend({ toShowText, toMatchScreenSnapshot });
