/**
 * The smaller points of the session page: find says how many matches there are, or "No
 * results"; "Fit to window" keeps fitting the shell when the window is resized.
 */
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

test('find counts matches or says "No results"; Fit follows a resized window', async ({
  page,
  jumpseat,
  agent,
}) => {
  await jumpseat.bashOk(agent, 'for i in 1 2 3; do echo needle-$i; done');
  await jumpseat.login(page, await jumpseat.mint('operator', 'Fay'));
  await openShell(page, jumpseat, agent);
  await expect.poll(() => screenOf(page)).toContain('needle-3');

  const find = page.getByLabel('Find in terminal');
  const count = page.getByTestId('find-count');
  await find.fill('needle-');
  // The echoed command holds "needle-" once too.
  await expect(count).toHaveText('1 of 4');
  await find.press('Enter');
  await expect(count).toHaveText(/^\d of 4$/);
  await find.fill('haystack-nowhere');
  await expect(count).toHaveText('No results');
  await find.fill('');
  await expect(count).toHaveText('');

  await page.getByRole('button', { name: 'Take over' }).click();
  await page.getByRole('button', { name: 'Fit to window' }).click();
  const size = async () => {
    const { cols, rows } = await jumpseat.sessionOf(agent);
    return `${cols}x${rows}`;
  };
  await expect.poll(size).not.toBe('120x40');
  const fitted = await size();
  await page.setViewportSize({ width: 900, height: 600 });
  await expect.poll(size).not.toBe(fitted);
  const smaller = await size();
  const [cols, rows] = smaller.split('x').map(Number);
  const [wideCols, tallRows] = fitted.split('x').map(Number);
  expect(cols).toBeLessThan(wideCols ?? 0);
  expect(rows).toBeLessThan(tallRows ?? 0);
  await page.getByRole('button', { name: 'Release' }).click();
  await expect.poll(size).toBe('120x40');
});
