/**
 * A clipped call's full output from the web app: the call in the timeline opens the saved file
 * on a page of its own, which finds in it (a match count, "No results") and downloads it whole;
 * the page is refused to a browser that may not read the shell's calls.
 */
import { readFileSync } from 'node:fs';
import { expect, openShell, test } from './support/fixtures.ts';

const LINES = 30_000;

test('a clipped call opens its full output, found in and downloaded whole', async ({
  page,
  browser,
  jumpseat,
  agent,
}) => {
  const reply = await jumpseat.bash(agent, `seq 1 ${LINES}`);
  expect(reply.output).toContain('<response clipped>');
  expect(reply.output).toMatch(/\n\[full output saved to \/\S+\]$/);
  const whole = `${Array.from({ length: LINES }, (_, i) => String(i + 1)).join('\n')}\n`;

  await jumpseat.login(page);
  await openShell(page, jumpseat, agent);
  const call = page.getByTestId('call').first();
  await call.locator('summary').click();
  await expect(call.locator('.clipped')).toHaveText('clipped');
  await call.getByTestId('full-output-link').click();
  await expect(page).toHaveURL(/\/sessions\/[^/]+\/calls\/[^/]+\/output$/);
  const output = page.getByTestId('full-output');
  await expect(output).toContainText(`${LINES - 1}\n${LINES}`);
  expect(await output.textContent()).toBe(whole);
  await expect(page.getByTestId('full-output-size')).toHaveText(/, 30000 lines\.$/);

  const find = page.getByLabel('Find');
  const count = page.getByTestId('find-count');
  await find.fill('29999');
  await expect(count).toHaveText('1 of 1');
  await find.fill('1234');
  const expected = whole.split('1234').length - 1;
  await expect(count).toHaveText(`1 of ${expected}`);
  await find.press('Enter');
  await expect(count).toHaveText(`2 of ${expected}`);
  await page.getByRole('button', { name: 'Previous match' }).click();
  await expect(count).toHaveText(`1 of ${expected}`);
  await find.fill('no such text');
  await expect(count).toHaveText('No results');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('full-output-download').click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^jumpseat-output-.*\.txt$/);
  expect(readFileSync(await download.path(), 'utf8')).toBe(whole);

  // Someone who may not read this shell's calls gets the explanation, not the output.
  const address = page.url();
  const stranger = await jumpseat.stranger(browser);
  await stranger.goto(address);
  await expect(stranger.getByTestId('notice')).toHaveAttribute('data-problem', 'login');
  await expect(stranger.getByTestId('full-output')).toHaveCount(0);
});
