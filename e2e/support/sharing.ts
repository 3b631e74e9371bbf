/**
 * Steps the sharing specs take as people do: open a shell of your own from the dashboard,
 * type in it, share it by link, and open a link in another browser giving a name.
 */
import type { Browser, Page } from '@playwright/test';
import { expect, type Jumpseat, screenOf } from './fixtures.ts';

/** On the dashboard: "New shell" (bash), then the new shell's page, live, holding the controls. */
export async function openOwnShell(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'New shell' }).click();
  await expect(page).toHaveURL(/\/sessions\/[^/]+$/);
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await expect(page.getByTestId('controller')).toHaveText(
    'You have control — type in the terminal',
  );
  return decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
}

/** Types one command line into the terminal (the page must hold the controls). */
export async function typeLine(page: Page, line: string): Promise<void> {
  await page.getByTestId('terminal').click();
  // One input event for the whole line (as a paste arrives), not one per key: much faster.
  await page.keyboard.insertText(line);
  await page.keyboard.press('Enter');
}

/** Types `line` followed by a marker echo, and waits until the marker is on the screen. */
export async function run(page: Page, line: string, marker: string): Promise<void> {
  await typeLine(page, `${line}; echo ${marker}-done-$((20+22))`);
  await expect.poll(() => screenOf(page)).toMatch(new RegExp(`^${marker}-done-42$`, 'm'));
}

/** The share panel: a new link of `role`; returns its URL as shown to copy. */
export async function createLink(
  page: Page,
  role: 'Watch only' | 'Watch and type',
): Promise<string> {
  const panel = page.getByTestId('share-panel');
  await panel.getByLabel('What the link allows').selectOption({ label: role });
  await panel.getByRole('button', { name: 'Create link' }).click();
  const link = panel.getByTestId('share-link');
  await expect(link).toHaveValue(/\/login\?token=/);
  return link.inputValue();
}

/** Someone opens `url` in a browser of their own and gives `name`; the page ends up live. */
export async function joinByLink(
  browser: Browser,
  jumpseat: Jumpseat,
  url: string,
  name: string,
): Promise<Page> {
  const page = await jumpseat.stranger(browser);
  await page.goto(url);
  await expect(page).toHaveURL(/\/sessions\/[^/]+$/);
  const prompt = page.getByTestId('name-prompt');
  await prompt.getByLabel('Your name').fill(name);
  await prompt.getByRole('button', { name: 'Join' }).click();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  return page;
}

/** The token inside a share link (`/login?token=…`). */
export function tokenOf(url: string): string {
  const token = new URL(url, 'http://link').searchParams.get('token');
  if (token === null) throw new Error(`no token in ${url}`);
  return token;
}

/** The presence list's entry for `name` on `page`. */
export function viewerEntry(page: Page, name: string) {
  return page.locator(`[data-testid="viewers"] li[data-name="${name}"]`);
}
