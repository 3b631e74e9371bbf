// The dashboard: every shell live — agent, dialect, state, current command and elapsed time,
// last exit code, controller and viewer count — and what a browser that is not logged in sees.
import { expect, openShell, test } from './support/fixtures.ts';

test('lists a new shell live with its state, command, exit code, controller and viewers', async ({
  page,
  browser,
  jumpseat,
  agent,
}) => {
  await jumpseat.login(page);
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  const row = page.locator(`[data-testid="session-row"][data-agent="${agent}"]`);
  await expect(row).toHaveCount(0);

  const command = `while [ ! -e ${agent}.stop ]; do sleep 0.05; done; (exit 3)`;
  const call = jumpseat.bash(agent, command);
  await expect(row).toHaveAttribute('data-state', 'running');
  await expect(row).toHaveAttribute('data-dialect', 'bash');
  await expect(row.getByRole('cell').nth(3)).toHaveText(command);
  await expect(row.getByRole('cell').nth(4)).toHaveText(/^\d+ s$/);
  await jumpseat.bash(`${agent}-helper`, `touch ${jumpseat.workspace}/${agent}.stop`);
  expect((await call).output).toBe('[exit code: 3]');
  await expect(row).toHaveAttribute('data-state', 'idle');
  await expect(row.getByRole('cell').nth(5)).toHaveText('3');
  await expect(row.getByRole('cell').nth(3)).toHaveText('');

  const operator = await jumpseat.person(browser, await jumpseat.mint('operator', 'Otto'));
  await openShell(operator, jumpseat, agent);
  await expect(row.getByRole('cell').nth(7)).toHaveText('1');
  await operator.getByRole('button', { name: 'Take over' }).click();
  await expect(row).toHaveAttribute('data-state', 'human_control');
  await expect(row.getByRole('cell').nth(6)).toHaveText('Otto');
  await operator.context().close();
  await expect(row.getByRole('cell').nth(7)).toHaveText('0');
  await expect(row.getByRole('cell').nth(6)).toHaveText('');
  await expect(row).toHaveAttribute('data-state', 'idle');

  await row.getByRole('link', { name: agent }).click();
  await expect(page).toHaveURL(/\/sessions\/[^/]+$/);
});

test('tells a browser that is not logged in to open the login URL', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Log in to watch the shells' })).toBeVisible();
  await expect(page.getByTestId('notice')).toContainText('login: http://…/login?token=…');
});
