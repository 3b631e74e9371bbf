// Sharing by link to type: the holder of a "watch and type" link asks for the controls; the
// person typing first keeps them, then hands over when asked again, and what the holder
// types shows in both browsers.
import { expect, screenOf, test } from './support/fixtures.ts';
import { createLink, joinByLink, openOwnShell, run, viewerEntry } from './support/sharing.ts';

test('an operator link asks for control, the owner hands over, the holder types', async ({
  page,
  browser,
  jumpseat,
}) => {
  // Two people's browsers and a real shell: more steps than most specs, so more time on a busy CI box.
  test.slow();
  await jumpseat.login(page, await jumpseat.mint('operator', 'Ann'));
  await openOwnShell(page);
  const url = await createLink(page, 'Watch and type');
  await expect(page.getByTestId('share')).toHaveAttribute('data-role', 'operator');

  const cleo = await joinByLink(browser, jumpseat, url, 'Cleo');
  await expect(cleo.getByTestId('controller')).toHaveText('Ann has control');
  await expect(cleo.getByRole('button', { name: 'Take over' })).toBeHidden();
  const prompt = page.getByTestId('control-request');

  // First Ann keeps the controls: Cleo is told, and may ask again.
  await cleo.getByRole('button', { name: 'Ask for control' }).click();
  await prompt.getByRole('button', { name: 'Keep' }).click();
  await expect(prompt).toBeHidden();
  await expect(cleo.getByRole('alert')).toHaveText('Ann kept the controls.');
  await expect(cleo.getByTestId('controller')).toHaveText('Ann has control');

  await cleo.getByRole('button', { name: 'Ask for control' }).click();
  await expect(cleo.getByTestId('control-requests')).toContainText(
    'You asked Ann for the controls',
  );

  // Cleo came by link and named herself: shown as a link holder wherever her name is.
  await expect(prompt).toHaveText(/^Cleo \(link\) asks for the controls/);
  // The tab says so too, for an owner looking at another tab.
  await expect(page).toHaveTitle('(Cleo (link) asks for control) Ann (person) · bash — jumpseat');
  // By keyboard, as Ann types: F6 leaves the terminal for the prompt's "Hand over".
  await page.getByTestId('terminal').click();
  await page.keyboard.press('F6');
  await expect(prompt.getByRole('button', { name: 'Hand over' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(prompt).toBeHidden();

  await expect(cleo.getByTestId('controller')).toHaveText(
    'You have control — type in the terminal',
  );
  await expect(page.getByTestId('controller')).toHaveText('Cleo (link) has control');
  // The timeline too: Ann let go and Cleo took them (the link's token, not a name, decides).
  await expect(
    page.getByTestId('control-event').filter({ hasText: 'Cleo (link) took the controls' }),
  ).toHaveCount(1);
  await expect(
    page.getByTestId('control-event').filter({ hasText: 'Ann handed the controls back' }),
  ).toHaveCount(1);
  await expect(page).toHaveTitle('Ann (person) · bash — jumpseat');
  // Ann owns the shell: she has the last word, and takes it back without asking.
  await expect(page.getByRole('button', { name: 'Take over' })).toBeEnabled();
  for (const person of [page, cleo]) {
    await expect(viewerEntry(person, 'Cleo')).toHaveAttribute('data-typing', 'true');
    await expect(viewerEntry(person, 'Ann')).toHaveAttribute('data-typing', 'false');
  }

  await run(cleo, 'echo cleo-typed-$((40+2))', 'cleo');
  for (const person of [page, cleo]) {
    await expect.poll(() => screenOf(person)).toMatch(/^cleo-typed-42$/m);
  }
});
