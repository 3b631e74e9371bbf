// Browser credentials no other port can use, and a login that asks before switching who you
// are (issue 13). An "agent's preview server" on another loopback port records every request
// the logged-in browser sends it; nothing it receives logs in to jumpseat.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { expect, test } from './support/fixtures.ts';

/** A little HTTP server on another port of the same host, keeping what browsers send it. */
interface Recorder {
  readonly origin: string;
  readonly received: { url: string; headers: IncomingHttpHeaders }[];
  /** Pages it serves: path → HTML. */
  readonly pages: Map<string, string>;
  close(): Promise<void>;
}

async function startRecorder(): Promise<Recorder> {
  const received: Recorder['received'] = [];
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    received.push({ url: request.url ?? '', headers: request.headers });
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(pages.get((request.url ?? '').split('?')[0] ?? '') ?? '<p>preview</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    pages,
    // Chromium keeps its connections open and opens spare ones it may never send a request
    // on; a plain close() waits for those until the server's headers timeout (60 s), longer
    // than a test may take. Every one of them is ended here.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let recorder: Recorder;
test.beforeEach(async () => {
  recorder = await startRecorder();
});
test.afterEach(async () => {
  await recorder.close();
});

/** Every string a request carried in its headers: each header value, each cookie's value. */
function everythingSent(): string[] {
  const values: string[] = [];
  for (const { url, headers } of recorder.received) {
    values.push(url);
    for (const value of Object.values(headers)) {
      for (const one of Array.isArray(value) ? value : [value ?? '']) {
        values.push(one);
        for (const part of one.split(/[;,\s]+/))
          values.push(part, part.split('=').slice(1).join('='));
      }
    }
  }
  return [...new Set(values.filter((value) => value.length >= 8))];
}

async function storedCredential(page: Page): Promise<string | null> {
  return page.evaluate(() => localStorage.getItem('jumpseat.credential'));
}

test('nothing another port of the host receives from a logged-in browser logs in to jumpseat', async ({
  page,
  jumpseat,
}) => {
  // An older jumpseat left its login cookie in this browser: logging in clears it.
  const host = new URL(jumpseat.origin).hostname;
  const adminToken = process.env.JUMPSEAT_E2E_TOKEN ?? '';
  await page
    .context()
    .addCookies([{ name: 'jumpseat_token', value: adminToken, domain: host, path: '/' }]);
  await jumpseat.login(page);
  await expect(page.getByRole('heading', { name: 'Shells' })).toBeVisible();
  const credential = await storedCredential(page);
  expect(credential).toMatch(/^jsb_/);
  expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain(
    'jumpseat_token',
  );

  // The admin clicks the agent's preview link, and the preview's page loads things.
  recorder.pages.set(
    '/preview',
    `<img src="${recorder.origin}/pixel.png"><script>fetch('${recorder.origin}/xhr', { credentials: 'include' })</script>`,
  );
  await page.goto(`${recorder.origin}/preview`);
  await expect.poll(() => recorder.received.length).toBeGreaterThanOrEqual(2);
  // And a link opened from jumpseat's own page, in a new tab, as a terminal link opens.
  await page.goto('/');
  const [popup] = await Promise.all([
    page.context().waitForEvent('page'),
    page.evaluate((url) => window.open(url, '_blank'), `${recorder.origin}/from-jumpseat`),
  ]);
  await expect.poll(() => recorder.received.some((r) => r.url === '/from-jumpseat')).toBe(true);
  await popup.close();

  const sent = everythingSent();
  expect(sent.join('\n')).not.toContain(adminToken);
  expect(sent.join('\n')).not.toContain(credential ?? '');
  // Try every value the preview server got as a way in, the ways a browser or a script would.
  for (const value of sent) {
    const asBearer = await fetch(`${jumpseat.origin}/api/sessions`, {
      headers: { authorization: `Bearer ${value.replace(/\s/g, '')}` },
    });
    expect(asBearer.status).toBe(401);
    const asCookie = await fetch(`${jumpseat.origin}/api/sessions`, {
      headers: { cookie: `jumpseat_token=${value.replace(/[;\s]/g, '')}` },
    });
    expect(asCookie.status).toBe(401);
  }
  // The page itself is still signed in.
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
});

test('a login link asks before switching who you are, and Stay keeps you', async ({
  page,
  jumpseat,
}) => {
  const ann = await jumpseat.mint('operator', 'Ann');
  const bob = await jumpseat.mint('viewer', 'Bob');
  await jumpseat.login(page, ann);
  await page.goto(`/login?token=${encodeURIComponent(bob)}`);
  const confirm = page.getByTestId('login-confirm');
  await expect(confirm.getByTestId('login-current')).toHaveText(
    'You are signed in as Ann (operator).',
  );
  await expect(confirm.getByTestId('login-target')).toHaveText(
    'This link signs you in as Bob (viewer).',
  );
  // The token left the address bar at once.
  await expect(page).toHaveURL(`${jumpseat.origin}/login`);
  await confirm.getByRole('button', { name: 'Stay as Ann' }).click();
  await expect(page).toHaveURL(`${jumpseat.origin}/`);
  const me = () =>
    page.evaluate(async () => {
      const credential = localStorage.getItem('jumpseat.credential') ?? '';
      const response = await fetch('/api/me', {
        headers: { authorization: `Bearer ${credential}` },
      });
      return ((await response.json()) as { name: string }).name;
    });
  expect(await me()).toBe('Ann');

  await page.goto(`/login?token=${encodeURIComponent(bob)}`);
  await page.getByRole('button', { name: 'Continue as Bob' }).click();
  await expect(page).toHaveURL(`${jumpseat.origin}/`);
  expect(await me()).toBe('Bob');
  // The same identity again: no question.
  await page.goto(`/login?token=${encodeURIComponent(bob)}`);
  await expect(page).toHaveURL(`${jumpseat.origin}/`);
  // Signing out ends this browser's credential on the server, not Bob's token.
  const credential = await storedCredential(page);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByTestId('notice')).toHaveAttribute('data-problem', 'login');
  expect(await storedCredential(page)).toBeNull();
  expect((await jumpseat.api('/api/me', {}, credential ?? '')).status).toBe(401);
  expect((await jumpseat.api('/api/me', {}, bob)).status).toBe(200);
});

test('a page on another site cannot silently sign a browser in', async ({ browser, jumpseat }) => {
  const attacker = await jumpseat.mint('viewer', 'Mallory');
  const page = await jumpseat.stranger(browser);
  recorder.pages.set(
    '/evil',
    `<a id="go" href="${jumpseat.origin}/login?token=${encodeURIComponent(attacker)}">win</a><script>document.getElementById('go').click()</script>`,
  );
  await page.goto(`${recorder.origin}/evil`);
  const confirm = page.getByTestId('login-confirm');
  await expect(confirm).toContainText('Another page sent you to this login link.');
  await expect(confirm.getByTestId('login-target')).toHaveText(
    'This link signs you in as Mallory (viewer).',
  );
  expect(await storedCredential(page)).toBeNull();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('notice')).toHaveAttribute('data-problem', 'login');
  expect(await storedCredential(page)).toBeNull();
});
