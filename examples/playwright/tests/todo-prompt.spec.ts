import { expect, terminalText, test } from 'jumpseat/playwright';
import { todo } from './todo-paths.ts';

test('clear asks first, and a person answers', async ({ shell }) => {
  await shell.run(`${todo} add one && ${todo} add two`);
  // The prompt waits for input: the tool says so, and the shell waits for a person.
  expect(await shell.run(`${todo} clear`)).toBe(
    'Remove all 2 items? [y/N] \n[waiting for input: bash]',
  );
  await shell.type('y\n');
  await expect(shell).toShowText(/^removed 2 items$/m);
});

test('the shell is live in the browser while a person answers', async ({ shell, page }) => {
  await shell.run(`${todo} add water the plants`);
  await shell.run(`${todo} clear`);
  await shell.watch(page);
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await shell.type('n\n');
  await expect(shell).toShowText(/^kept them$/m);
  // The same screen in the browser, as a person watching it sees it.
  await expect.poll(() => terminalText(page)).toMatch(/^kept them$/m);
});
