/**
 * The e2e test's view of the server: agent calls over HTTP (as an agent harness makes them),
 * tokens for people, logging a browser in, and a fresh agent id per test so tests never
 * share a shell.
 */
import { randomBytes } from 'node:crypto';
import {
  type Browser,
  type BrowserContext,
  test as base,
  expect,
  type Page,
} from '@playwright/test';
import type { SessionInfo } from '../../shared/src/api.ts';
import type {} from '../../web/src/hooks.ts';

export interface AgentReply {
  readonly status: number;
  /** `output` of a 200, or the error body's `code` otherwise. */
  readonly output: string;
  readonly code: string;
}

export interface Jumpseat {
  /** The server's origin, `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** The workspace directory shells start in (files the shell writes can be read here). */
  readonly workspace: string;
  /** A request to the server with `token` as Bearer (the admin's by default). */
  api(path: string, init?: RequestInit, token?: string): Promise<Response>;
  /** `POST /api/agents/:agent/bash` as the admin. */
  bash(agent: string, command: string): Promise<AgentReply>;
  /**
   * The same call, which must answer 200: its output, or the test fails with the status and
   * the server's whole answer (a 503 says why the shell could not start).
   */
  bashOk(agent: string, command: string): Promise<string>;
  /** Mints a token for a person: `viewer` or `operator`, with a display name. */
  mint(role: 'viewer' | 'operator' | 'admin', name: string): Promise<string>;
  sessions(): Promise<SessionInfo[]>;
  /** The agent's bash shell (it must have been started by a call). */
  sessionOf(agent: string): Promise<SessionInfo>;
  /** Logs `page`'s browser context in with `token` (the login URL) and lands on `/`. */
  login(page: Page, token?: string): Promise<void>;
  /** A new browser context (a second person) logged in with `token`, with one page. */
  person(browser: Browser, token: string): Promise<Page>;
  /** A new browser context (someone given a link), not logged in, with one page. */
  stranger(browser: Browser): Promise<Page>;
}

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined)
    throw new Error(`${name} is not set: run the suite with playwright test`);
  return value;
}

export const test = base.extend<{ jumpseat: Jumpseat; agent: string }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
  baseURL: async ({}, use) => use(env('JUMPSEAT_E2E_URL')),
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
  agent: async ({}, use, testInfo) => {
    const slug =
      testInfo.titlePath
        .at(-1)
        ?.replace(/[^A-Za-z0-9]+/g, '-')
        .slice(0, 30) ?? 't';
    await use(`e2e-${slug}-${randomBytes(3).toString('hex')}`.replace(/-+/g, '-'));
  },
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
  jumpseat: async ({}, use) => {
    const origin = env('JUMPSEAT_E2E_URL');
    const adminToken = env('JUMPSEAT_E2E_TOKEN');
    const api = async (
      path: string,
      init: RequestInit = {},
      token = adminToken,
    ): Promise<Response> =>
      fetch(`${origin}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...init.headers,
        },
      });
    /** Contexts a test opened for other people, closed when it ends. */
    const contexts: BrowserContext[] = [];
    const newContext = async (browser: Browser): Promise<Page> => {
      const context = await browser.newContext({
        baseURL: origin,
        viewport: { width: 1280, height: 800 },
      });
      contexts.push(context);
      return context.newPage();
    };
    /** `POST /api/agents/:agent/bash` as the admin: the status and the body as sent. */
    const postBash = async (agent: string, command: string) => {
      const response = await api(`/api/agents/${agent}/bash`, {
        method: 'POST',
        body: JSON.stringify({ command }),
      });
      return { status: response.status, text: await response.text() };
    };
    const jumpseat: Jumpseat = {
      origin,
      workspace: env('JUMPSEAT_E2E_WORKSPACE'),
      api,
      async bash(agent, command) {
        const { status, text } = await postBash(agent, command);
        const body = JSON.parse(text) as { output?: string; error?: { code: string } };
        return { status, output: body.output ?? '', code: body.error?.code ?? '' };
      },
      async bashOk(agent, command) {
        const { status, text } = await postBash(agent, command);
        if (status !== 200) {
          throw new Error(`${agent}'s call ${JSON.stringify(command)}: ${status} ${text}`);
        }
        return (JSON.parse(text) as { output?: string }).output ?? '';
      },
      async mint(role, name) {
        const response = await api('/api/tokens', {
          method: 'POST',
          body: JSON.stringify({ role, name }),
        });
        expect(response.status).toBe(201);
        return ((await response.json()) as { token: string }).token;
      },
      async sessions() {
        const response = await api('/api/sessions');
        expect(response.status).toBe(200);
        return (await response.json()) as SessionInfo[];
      },
      async sessionOf(agent) {
        const session = (await jumpseat.sessions()).find(
          (s) => s.agent === agent && s.dialect === 'bash',
        );
        if (session === undefined) throw new Error(`no bash shell for agent ${agent}`);
        return session;
      },
      async login(page, token = adminToken) {
        await page.goto(`/login?token=${encodeURIComponent(token)}`);
        await expect(page).toHaveURL(`${origin}/`);
      },
      async person(browser, token) {
        const page = await newContext(browser);
        await jumpseat.login(page, token);
        return page;
      },
      stranger: newContext,
    };
    await use(jumpseat);
    for (const context of contexts) await context.close();
  },
});

export { expect };

/** The terminal's screen text, as `window.jumpseat.terminalText()` returns it. */
export function screenOf(page: Page): Promise<string> {
  return page.evaluate(() => window.jumpseat.terminalText());
}

/** Opens the session page of `agent`'s bash shell and waits until it is live. */
export async function openShell(
  page: Page,
  jumpseat: Jumpseat,
  agent: string,
): Promise<SessionInfo> {
  const session = await jumpseat.sessionOf(agent);
  await page.goto(`/sessions/${session.id}`);
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  return session;
}
