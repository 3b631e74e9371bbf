/**
 * The replay at 1280×800: the terminal and the player's controls on one screen, the first
 * frame drawn before Play, the keyboard (Space, ←/→, `,`/`.`, 0–9), fullscreen, and a link to
 * a moment (`?t=SECONDS`) that opens there.
 */
import type { Page } from '@playwright/test';
import { expect, screenOf, test } from './support/fixtures.ts';

const position = (page: Page) => page.evaluate(() => window.jumpseat.replay?.position() ?? -1);
const duration = (page: Page) => page.evaluate(() => window.jumpseat.replay?.duration() ?? -1);

test('fits 1280×800 with its first frame, keys, fullscreen and a link to a moment', async ({
  page,
  jumpseat,
  agent,
}) => {
  expect((await jumpseat.bash(agent, 'echo first-output')).output).toBe('first-output');
  expect((await jumpseat.bash(agent, 'sleep 1.5; seq 1 60')).output).toMatch(/\n60$/);
  expect((await jumpseat.bash(agent, 'echo last-output')).output).toBe('last-output');
  const session = await jumpseat.sessionOf(agent);
  await jumpseat.login(page);
  await page.goto(`/sessions/${session.id}/replay`);
  const controls = page.getByTestId('replay-controls');
  await expect(controls).toHaveAttribute('data-state', 'paused');

  // Before Play: the first frame is on the screen, not a blank terminal.
  await expect.poll(() => screenOf(page)).not.toBe('');
  // Everything on one screen: the whole terminal and Play, without scrolling.
  const viewport = page.viewportSize() ?? { width: 0, height: 0 };
  const screen = await page.getByTestId('replay-terminal').locator('.xterm-screen').boundingBox();
  const play = await page.getByTestId('replay-play').boundingBox();
  expect(screen).not.toBeNull();
  expect(play).not.toBeNull();
  if (screen === null || play === null) return;
  expect(screen.y).toBeGreaterThanOrEqual(0);
  expect(screen.y + screen.height).toBeLessThanOrEqual(viewport.height);
  expect(screen.x + screen.width).toBeLessThanOrEqual(viewport.width);
  expect(play.y + play.height).toBeLessThanOrEqual(viewport.height);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  await page.screenshot({ path: test.info().outputPath('replay-1280x800.png') });

  // The keyboard: Space plays and pauses, 0–9 jump, arrows move 5 s, , and . step a frame.
  await page.keyboard.press(' ');
  await expect(controls).toHaveAttribute('data-state', /playing|ended/);
  await page.keyboard.press(' ');
  await expect(controls).toHaveAttribute('data-state', /paused|ended/);
  const total = await duration(page);
  await page.keyboard.press('9');
  await expect.poll(() => position(page)).toBeCloseTo(0.9 * total, 0);
  await page.keyboard.press('0');
  await expect.poll(() => position(page)).toBe(0);
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => position(page)).toBe(Math.min(5000, total));
  await page.keyboard.press('ArrowLeft');
  await expect.poll(() => position(page)).toBe(0);
  await page.keyboard.press('.');
  const firstFrame = await position(page);
  expect(firstFrame).toBeGreaterThan(0);
  await page.keyboard.press('.');
  await expect.poll(() => position(page)).toBeGreaterThan(firstFrame);
  await page.keyboard.press(',');
  await expect.poll(() => position(page)).toBe(firstFrame);

  // A link to this moment opens the replay there.
  await page.keyboard.press('9');
  await page.getByTestId('replay-moment').click();
  const link = await page.getByTestId('replay-moment-url').inputValue();
  const seconds = Math.floor((0.9 * total) / 100) / 10;
  expect(link).toBe(
    `${jumpseat.origin}/sessions/${encodeURIComponent(session.id)}/replay?t=${seconds.toFixed(1)}`,
  );
  await page.goto(link);
  await expect.poll(() => position(page)).toBe(seconds * 1000);
  await expect.poll(() => screenOf(page)).toContain('60');
  expect(await screenOf(page)).not.toContain('last-output');

  // Fullscreen holds the player alone; F leaves it again.
  await page.getByTestId('replay-fullscreen').click();
  await expect
    .poll(() => page.evaluate(() => document.fullscreenElement?.getAttribute('data-testid')))
    .toBe('replay-player');
  await expect(page.getByTestId('replay-fullscreen')).toHaveText('Exit fullscreen');
  await page.keyboard.press('f');
  await expect.poll(() => page.evaluate(() => document.fullscreenElement)).toBeNull();
});
