/**
 * A phone at 390×844: the dashboard as cards with every field and nothing clipped or scrolled
 * sideways, and a shell's terminal at a readable size with a zoom control. Screenshots of
 * both are written to the test's output folder for a person to look at.
 */
import type { Page } from '@playwright/test';
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

/** Nothing on the page is wider than the screen. */
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

test('the dashboard shows cards and a shell a readable terminal with a zoom control', async ({
  page,
  jumpseat,
  agent,
}) => {
  await jumpseat.bashOk(agent, 'echo phone-ready; (exit 2)');
  expect((await jumpseat.bash(`${agent}-w`, "read -p 'Ship it? [y/N] ' a")).output).toContain(
    '[waiting for input: bash]',
  );
  await jumpseat.login(page);
  await page.getByLabel('Filter').fill(agent);
  const card = page.locator(`[data-testid="session-row"][data-agent="${agent}-w"]`);
  await expect(card).toHaveAttribute('data-needs-human', 'true');
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  // A card: its fields stacked, each named, its badge whole inside it.
  const box = await card.boundingBox();
  const badge = await card.getByTestId('state').boundingBox();
  expect(box).not.toBeNull();
  expect(badge).not.toBeNull();
  if (box === null || badge === null) return;
  expect(box.width).toBeLessThanOrEqual(390);
  expect(badge.x).toBeGreaterThanOrEqual(box.x);
  expect(badge.x + badge.width).toBeLessThanOrEqual(box.x + box.width);
  await expect(card.getByRole('cell', { name: 'bash' })).toBeVisible();
  await expect(card.locator('td[data-label="Command"]')).toHaveText("read -p 'Ship it? [y/N] ' a");
  await page.screenshot({ path: test.info().outputPath('phone-dashboard.png'), fullPage: true });

  await openShell(page, jumpseat, agent);
  await expect.poll(() => screenOf(page)).toContain('phone-ready');
  const size = page.getByTestId('zoom-size');
  const px = async () => Number((await size.textContent())?.replace(' px', ''));
  await expect.poll(px).toBeGreaterThanOrEqual(10);
  const before = await px();
  await page.getByRole('button', { name: 'Larger text' }).click();
  await expect.poll(px).toBe(Math.round(before) + 1);
  await page.getByRole('button', { name: 'Smaller text' }).click();
  await page.getByRole('button', { name: 'Smaller text' }).click();
  await expect.poll(px).toBe(Math.round(before) - 1);
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  await page.getByRole('button', { name: 'Fit the page' }).click();
  await page.screenshot({ path: test.info().outputPath('phone-session.png'), fullPage: true });

  // The replay too: readable, its controls whole, nothing wider than the screen.
  const session = await jumpseat.sessionOf(agent);
  await page.goto(`/sessions/${session.id}/replay`);
  await expect.poll(() => screenOf(page)).not.toBe('');
  await expect.poll(px).toBeGreaterThanOrEqual(10);
  await expect(page.getByTestId('replay-play')).toBeInViewport();
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: test.info().outputPath('phone-replay.png'), fullPage: true });
});
