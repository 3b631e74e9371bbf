// A revoked minted token's open pages (issue 26, defect 2): the dashboard and a shell's page
// clear what they showed at once and say which credential ended and why, in the token's
// words, not a share link's; after a reload too. At 1280×800 and 390×844.
import { expect, openShell, test } from './support/fixtures.ts';

/** The server tells an open page within this; a revoked page must not wait for a poll. */
const TOLD_WITHIN_MS = 5_000;

for (const size of [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
]) {
  test.describe(size.name, () => {
    test.use({ viewport: size.viewport });

    test("a revoked token's open pages clear and say which token ended", async ({
      page,
      browser,
      jumpseat,
      agent,
    }, testInfo) => {
      await jumpseat.bashOk(agent, 'echo revoked-page');
      const name = `viewer-${size.name}-${Date.now()}`;
      const token = await jumpseat.mint('viewer', name);
      await jumpseat.login(page, token);
      await expect(
        page.locator(`[data-testid="session-row"][data-agent="${agent}"]`),
      ).toBeVisible();
      const shellPage = await jumpseat.person(browser, token);
      await openShell(shellPage, jumpseat, agent);

      const listed = (await (await jumpseat.api('/api/tokens')).json()) as {
        id: string;
        name: string;
      }[];
      const id = listed.find((t) => t.name === name)?.id ?? '';
      expect((await jumpseat.api(`/api/tokens/${id}`, { method: 'DELETE' })).status).toBe(204);

      for (const open of [page, shellPage]) {
        const notice = open.getByTestId('notice');
        await expect(notice).toHaveAttribute('data-problem', 'revoked', {
          timeout: TOLD_WITHIN_MS,
        });
        await expect(notice.getByRole('heading')).toHaveText('Your token was revoked');
        await expect(open.getByTestId('revoked-detail')).toHaveText(
          `The token "${name}" was revoked by admin: this browser signed in with it.`,
        );
        await expect(notice).not.toContainText('shared this shell');
        await expect(open.getByTestId('session-row')).toHaveCount(0);
        await expect(open.locator('.xterm')).toHaveCount(0);
        await expect(open.getByTestId('connection')).toBeHidden();
      }
      await expect(page).toHaveTitle('jumpseat');
      await page.screenshot({ path: testInfo.outputPath(`revoked-${size.name}.png`) });

      await page.reload();
      await expect(page.getByTestId('notice').getByRole('heading')).toHaveText(
        'Your token was revoked',
      );
      await expect(page.getByTestId('revoked-detail')).toHaveText(
        'An admin revoked the token this browser signed in with.',
      );
      await expect(page.getByTestId('session-row')).toHaveCount(0);
    });
  });
}
