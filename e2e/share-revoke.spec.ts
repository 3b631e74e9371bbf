// Revoking a link while its holder watches output stream by: the holder's page says access
// was revoked at once, gets no further output and does not reconnect; the link's token is
// refused from then on.
import { expect, screenOf, test } from './support/fixtures.ts';
import { createLink, joinByLink, openOwnShell, tokenOf, typeLine } from './support/sharing.ts';

/** Lines of the streaming loop on a screen: `tick-N`, the highest N seen. */
function lastTick(screen: string): number {
  const ticks = [...screen.matchAll(/^tick-(\d+)$/gm)].map((match) => Number(match[1]));
  return ticks.length === 0 ? 0 : Math.max(...ticks);
}

test('revoking a link mid-stream disconnects its holder at once', async ({
  page,
  browser,
  jumpseat,
}) => {
  // Two people's browsers and a real shell: more steps than most specs, so more time on a busy CI box.
  test.slow();
  await jumpseat.login(page, await jumpseat.mint('operator', 'Ann'));
  const sessionId = await openOwnShell(page);
  const url = await createLink(page, 'Watch only');
  const dan = await joinByLink(browser, jumpseat, url, 'Dan');

  await typeLine(page, 'for i in $(seq 1 100000); do echo tick-$i; sleep 0.02; done');
  await expect.poll(async () => lastTick(await screenOf(dan))).toBeGreaterThan(20);

  await page.getByTestId('share').getByRole('button', { name: 'Revoke' }).click();
  const notice = dan.getByTestId('notice');
  await expect(notice).toHaveAttribute('data-problem', 'revoked');
  await expect(notice).toContainText('Your access to this shell was revoked');
  await expect(dan.getByTestId('connection')).toHaveAttribute('data-state', 'closed');
  await expect(page.getByTestId('share')).toHaveCount(0);
  await expect(page.getByTestId('share-link')).toBeHidden();

  // The stream goes on for Ann; Dan's page stays where it was cut off.
  const cutAt = await dan.evaluate(() => window.jumpseat.position());
  const danLast = lastTick(await dan.evaluate(() => window.jumpseat.bufferText()));
  const annAtCut = lastTick(await screenOf(page));
  await expect.poll(async () => lastTick(await screenOf(page))).toBeGreaterThan(annAtCut + 20);
  expect(await dan.evaluate(() => window.jumpseat.position())).toBe(cutAt);
  expect(lastTick(await dan.evaluate(() => window.jumpseat.bufferText()))).toBe(danLast);
  await expect(dan.getByTestId('connection')).toHaveAttribute('data-state', 'closed');

  const token = tokenOf(url);
  for (const path of [
    '/api/me',
    `/api/sessions/${sessionId}`,
    `/api/sessions/${sessionId}/calls`,
  ]) {
    const response = await jumpseat.api(path, {}, token);
    expect(response.status, path).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('LINK_ENDED');
  }

  // Coming back later says the same, not "log in".
  await dan.reload();
  await expect(dan.getByTestId('notice')).toHaveAttribute('data-problem', 'revoked');

  await page.getByRole('button', { name: 'Interrupt' }).click();
});
