// The Tokens page as a new admin uses it (issue 26): mint a token and copy its login URL or
// the token once; search, narrow to a status, sort; a Reaches column that says what each
// reaches; cards on a phone. At 1280×800 and 390×844.
import { expect, test } from './support/fixtures.ts';

for (const size of [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
]) {
  test.describe(size.name, () => {
    test.use({ viewport: size.viewport });

    test('mint a viewer and an agent token, copy each once, find them again', async ({
      page,
      browser,
      context,
      jumpseat,
    }, testInfo) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      const stamp = `${size.name}-${Date.now()}`;
      await jumpseat.login(page);
      await page.goto('/tokens');

      await page.getByLabel('Role').selectOption('viewer');
      await page.getByLabel('Name').fill(`Vera-${stamp}`);
      await page.getByRole('button', { name: 'Mint token' }).click();
      const minted = page.getByTestId('minted');
      await expect(minted).toContainText(
        `Vera-${stamp} (viewer) — copy it now: it is shown only this once.`,
      );
      const loginUrl = (await page.getByTestId('minted-login-url').textContent()) ?? '';
      expect(loginUrl).toMatch(new RegExp(`^${jumpseat.origin}/login\\?token=`));
      await page.getByRole('button', { name: 'Copy login URL' }).click();
      await expect(page.getByTestId('copied')).toHaveText('login URL copied.');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(loginUrl);
      await page.screenshot({
        path: testInfo.outputPath(`tokens-minted-${size.name}.png`),
        fullPage: true,
      });
      // The copied URL logs its holder in, as that viewer.
      const vera = await browser.newPage();
      await vera.goto(loginUrl);
      await expect(vera).toHaveURL(`${jumpseat.origin}/`);
      expect(await vera.evaluate(() => fetch('/api/me').then((r) => r.status))).toBeDefined();
      await vera.close();
      await page.getByRole('button', { name: 'Done' }).click();
      await expect(minted).toBeHidden();
      await expect(page.getByTestId('minted-token')).toHaveCount(0);

      // An agent's token: the agent id is required; the token itself is what is copied.
      await page.getByLabel('Role').selectOption('agent');
      await page.getByLabel('Name').fill(`Bot-${stamp}`);
      await page.getByRole('button', { name: 'Mint token' }).click();
      await expect(minted).toBeHidden(); // the browser asks for the agent id first
      await page.getByLabel('Agent').fill(`bot-${stamp}`);
      // Placement labels: a malformed one is refused on the page, with the reason.
      await page.getByLabel('Labels').fill('gpu');
      await page.getByRole('button', { name: 'Mint token' }).click();
      await expect(page.getByTestId('mint-error')).toHaveText('a label is key=value, not "gpu"');
      await page.getByLabel('Labels').fill('gpu=1, zone=eu');
      await page.getByRole('button', { name: 'Mint token' }).click();
      await expect(minted).toContainText(`Bot-${stamp} (agent · bot-${stamp} · gpu=1 zone=eu)`);
      await expect(page.getByTestId('minted-login-url')).toHaveCount(0);
      const secret = (await page.getByTestId('minted-token').textContent()) ?? '';
      await page.getByRole('button', { name: 'Copy token' }).click();
      await expect(page.getByTestId('copied')).toHaveText('token copied.');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      expect(
        (
          await jumpseat.api(
            `/api/agents/bot-${stamp}/bash`,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{"command":"echo minted"}',
            },
            secret,
          )
        ).status,
      ).toBe(200);

      // Reaches, search and sort.
      const rows = page.getByTestId('token-row');
      const vRow = page.locator(`[data-testid="token-row"][data-name="Vera-${stamp}"]`);
      const bRow = page.locator(`[data-testid="token-row"][data-name="Bot-${stamp}"]`);
      await expect(vRow).toContainText('every shell: watch only');
      await expect(bRow).toContainText(
        `tool calls in agent bot-${stamp}’s shells, on hosts with gpu=1 zone=eu`,
      );
      await page.getByLabel('Search').fill(stamp);
      await expect(rows).toHaveCount(2);
      await page.getByLabel('Search').fill(`agent ${stamp}`);
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toHaveAttribute('data-name', `Bot-${stamp}`);
      await page.getByLabel('Search').fill(stamp);
      await page.getByLabel('Status').selectOption('revoked');
      await expect(rows).toHaveCount(0);
      await expect(page.getByTestId('tokens-no-match')).toBeVisible();
      await page.getByLabel('Status').selectOption('active');
      await expect(rows).toHaveCount(2);
      if (size.name === 'desktop') {
        await page.locator('th[data-sort="name"]').click();
        await expect(page.locator('th[data-sort="name"]')).toHaveAttribute(
          'aria-sort',
          'ascending',
        );
        await expect(rows.first()).toHaveAttribute('data-name', `Bot-${stamp}`);
        await page.locator('th[data-sort="name"]').click();
        await expect(rows.first()).toHaveAttribute('data-name', `Vera-${stamp}`);
      } else {
        // Cards: no header row, each card within the screen, every field named.
        await expect(page.locator('[data-testid="tokens"] thead')).toBeHidden();
        const box = await vRow.boundingBox();
        expect(box?.width ?? 999).toBeLessThanOrEqual(390);
        const label = await vRow
          .locator('td[data-label="Reaches"]')
          .evaluate((cell) => getComputedStyle(cell, '::before').content);
        expect(label).toBe('"Reaches"');
      }
      await page.screenshot({
        path: testInfo.outputPath(`tokens-list-${size.name}.png`),
        fullPage: true,
      });
    });
  });
}
