import { expect, test } from 'jumpseat/playwright';
import { todo } from './todo-paths.ts';

test('a long list pages through less', async ({ shell }) => {
  await shell.run(`for i in $(seq 1 60); do ${todo} add "chore $i" > /dev/null; done`);
  await shell.run(`${todo} list | less`);
  await expect(shell).toShowText(/^ 1\. chore 1$/m);
  await shell.press('G'); // to the end
  await expect(shell).toShowText(/^60\. chore 60$/m);
  await expect(shell).toMatchScreenSnapshot('end-of-list');
  await shell.press('q');
});
