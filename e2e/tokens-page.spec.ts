// The admin's Tokens page (issue 13): every minted token with its last use, renamed and
// revoked from the page; a revoked token stops working at once.
import { expect, test } from './support/fixtures.ts';

test('the admin renames and revokes a minted token on the Tokens page', async ({
  page,
  jumpseat,
}) => {
  const name = `Temp-${Date.now()}`;
  const token = await jumpseat.mint('viewer', name);
  expect((await jumpseat.api('/api/me', {}, token)).status).toBe(200);
  await jumpseat.login(page);
  await page.getByTestId('tokens-link').click();
  await expect(page).toHaveURL(`${jumpseat.origin}/tokens`);
  const row = page.locator(`[data-testid="tokens"] tr[data-name="${name}"]`);
  await expect(row).toHaveAttribute('data-status', 'active');
  await expect(row).not.toContainText('never'); // it was used just now
  await row.getByRole('button', { name: 'Rename' }).click();
  await row.getByLabel(`New name for ${name}`).fill(`${name}-renamed`);
  await row.getByRole('button', { name: 'Save' }).click();
  const renamed = page.locator(`[data-testid="tokens"] tr[data-name="${name}-renamed"]`);
  await expect(renamed).toBeVisible();
  expect(((await (await jumpseat.api('/api/me', {}, token)).json()) as { name: string }).name).toBe(
    `${name}-renamed`,
  );
  await renamed.getByRole('button', { name: 'Revoke' }).click();
  await renamed.getByRole('button', { name: `Revoke ${name}-renamed for good` }).click();
  await expect(renamed).toHaveAttribute('data-status', 'revoked');
  expect((await jumpseat.api('/api/me', {}, token)).status).toBe(401);
});
