// From the dashboard to the answer: a prompting command shows `waiting_input`, visibly calling
// for a human; the human opens the shell, takes over, answers, and the command completes.
// On jumpseat/playwright's fixtures: the agent's shell is `shell`, the human is the page.
import { expect, terminalText, test } from '../playwright/src/index.ts';

test('a prompting command shows waiting_input and a human answers it', async ({
  page,
  jumpseat,
  shell,
}) => {
  const { token } = await jumpseat.client.createToken({ role: 'operator', name: 'Olga' });
  await page.goto(jumpseat.loginUrl(token));
  await expect(page).toHaveURL(`${jumpseat.url}/`);
  expect(await shell.run("read -p 'name? ' n; echo hi $n")).toBe(
    'name? \n[waiting for input: bash]',
  );

  const row = page.locator(`[data-testid="session-row"][data-agent="${shell.agent}"]`);
  await expect(row).toHaveAttribute('data-state', 'waiting_input');
  await expect(row.getByTestId('state')).toHaveText('waiting for input — needs a human');
  await expect(page.getByText('waiting for input:')).toBeVisible();
  await expect(page).toHaveTitle(/^\(\d+ waiting\) jumpseat$/);

  await row.getByRole('link', { name: shell.agent }).click();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await expect(page.getByTestId('call').first()).toHaveAttribute('data-outcome', 'waiting_input');
  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(page.getByRole('button', { name: 'Release' })).toBeVisible();
  await page.getByTestId('terminal').click();
  await page.keyboard.type('Bob');
  await page.keyboard.press('Enter');
  await expect.poll(() => terminalText(page)).toMatch(/^hi Bob$/m);
  await page.getByRole('button', { name: 'Release' }).click();
  await expect(page.getByTestId('state')).toHaveText('idle');

  // The command finished in the agent's shell: its variable is there for the next call.
  expect(await shell.run('echo "n=$n"')).toMatch(/^\[a human used this shell: .*\]\nn=Bob$/);
  await expect(shell).toShowText(/^n=Bob$/m);
});
