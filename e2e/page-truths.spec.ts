// What a new user tripped on (issue 26, defects 3–5): an ended shell's page offers no
// control and no green Live pill; the Tokens page, which has no live stream, shows no red
// "Disconnected" pill; a column header sorts on a click anywhere in its cell. At 1280×800 and
// 390×844.
import { expect, openShell, test } from './support/fixtures.ts';

for (const size of [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
]) {
  test.describe(size.name, () => {
    test.use({ viewport: size.viewport });

    test("an ended shell's page offers no control and no Live pill", async ({
      page,
      jumpseat,
      agent,
    }) => {
      await jumpseat.bashOk(agent, 'true');
      await jumpseat.login(page);
      await openShell(page, jumpseat, agent);
      await expect(page.getByTestId('connection')).toHaveText('Live');
      expect((await jumpseat.bash(agent, 'exit 3')).output).toContain('[shell exited: code 3]');
      await expect(page.getByTestId('successor')).toContainText('This shell has ended.');
      await expect(page.getByRole('button', { name: 'Take over' })).toBeHidden();
      await expect(page.getByRole('button', { name: 'Interrupt' })).toBeHidden();
      await expect(page.getByText('The agent has the shell')).toBeHidden();
      await expect(page.getByTestId('controller')).toBeHidden();
      await expect(page.getByTestId('connection')).toBeHidden();
    });

    test('the Tokens page shows no connection pill', async ({ page, jumpseat }) => {
      // A token of its own: on a server where none was minted yet (this file run alone), the
      // table has no row and no height, and is not visible.
      await jumpseat.mint('viewer', 'Vera');
      await jumpseat.login(page);
      await page.goto('/tokens');
      await expect(page.getByTestId('tokens')).toBeVisible();
      await expect(page.getByTestId('connection')).toBeHidden();
      await expect(page.getByText('Disconnected')).toHaveCount(0);
    });
  });
}

test.describe('desktop', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('a column header sorts on a click anywhere in its cell', async ({
    page,
    jumpseat,
    agent,
  }) => {
    await jumpseat.bashOk(agent, 'true');
    await jumpseat.login(page);
    const header = page.locator('th[data-sort="dialect"]');
    await expect(header).toBeVisible();
    const cell = await header.boundingBox();
    const words = await header.getByRole('button').boundingBox();
    if (cell === null || words === null) throw new Error('the header is not laid out');
    // Right of the words, inside the cell: the words' own button is not hit.
    const x = cell.width - 3;
    expect(cell.x + x).toBeGreaterThan(words.x + words.width);
    await header.click({ position: { x, y: cell.height / 2 } });
    await expect(header).toHaveAttribute('aria-sort', 'ascending');
    await header.click({ position: { x, y: cell.height / 2 } });
    await expect(header).toHaveAttribute('aria-sort', 'descending');
  });
});
