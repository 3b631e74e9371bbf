import { expect, test } from 'jumpseat/playwright';
import { todo } from './todo-paths.ts';

test('adds and lists items', async ({ shell }) => {
  expect(await shell.run(`${todo} add buy milk`)).toBe('added: buy milk');
  expect(await shell.run(`${todo} add call Ada`)).toBe('added: call Ada');
  expect(await shell.run(`${todo} list`)).toBe(' 1. buy milk\n 2. call Ada');
});

test('says what is wrong, with an exit code', async ({ shell }) => {
  expect(await shell.run(`${todo} done 7`)).toBe('todo done: no item 7\n[exit code: 1]');
  expect(await shell.run(`${todo} frobnicate`)).toBe(
    'usage: todo add TEXT… | list | done N | clear\n[exit code: 2]',
  );
});
