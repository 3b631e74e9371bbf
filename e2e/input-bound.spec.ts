// The session page: a controller pastes far more than a program that does not read can take;
// past the server's bound the keys are dropped, not queued, the page says so, and Ctrl-C
// still stops the program at once.
import { processesRunning } from '../server/test/support/host-processes.ts';
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

/** One paste: 15 lines of 2,000 characters (30 kB, under a live message's 64 KiB). */
const PASTE = Array.from({ length: 15 }, () => `${'y'.repeat(1999)}\n`).join('');
/** The program that does not read: a duration no other test's `sleep` has. */
const SLEEP_S = 613;
/** The server's default bound is 256 KiB and the terminal holds ~68 KB: 20 pastes pass both. */
const PASTES = 20;

test('keys a program does not read are dropped past the bound, the page says so, Ctrl-C still works', async ({
  page,
  jumpseat,
  agent,
}) => {
  // The type-ahead the shell gets after Ctrl-C is tens of 2,000-character lines, each echoed
  // and run: on a loaded machine that takes a while before the next command shows.
  test.setTimeout(120_000);
  await jumpseat.bashOk(agent, 'echo ready');
  await jumpseat.login(page);
  await openShell(page, jumpseat, agent);
  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(page.getByRole('button', { name: 'Release' })).toBeVisible();
  await page.getByTestId('terminal').click();
  await page.keyboard.insertText(`sleep ${SLEEP_S}; echo slept-$((40+2))`);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('state')).toHaveText('human in control');
  // The program runs before the pastes: typed while bash still read the line, they and the
  // Ctrl-C met its line editor instead (an interrupt there drops the part of the line read).
  await expect.poll(() => processesRunning('sleep', String(SLEEP_S)).length).toBe(1);
  const notice = page.getByTestId('notice-line');
  // Pasted as a browser pastes (the terminal sends each line's Enter).
  for (let paste = 0; paste < PASTES; paste++) {
    await page.evaluate((text) => {
      const data = new DataTransfer();
      data.setData('text/plain', text);
      document
        .querySelector('.xterm-helper-textarea')
        ?.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
    }, PASTE);
  }
  await expect(notice).toContainText('The shell is not reading what you type');
  await expect(notice).toContainText('Ctrl-C still goes through');
  await expect(notice).toHaveAttribute('data-tone', 'warning');

  await page.keyboard.press('Control+C');
  // What the terminal itself held (type-ahead, at most its own buffers) reaches the shell
  // after the interrupt, as in any terminal; Enter ends its last, cut line.
  await page.keyboard.press('Enter');
  await page.keyboard.insertText('echo back-$((40+2))');
  await page.keyboard.press('Enter');
  await expect.poll(() => screenOf(page), { timeout: 60_000 }).toMatch(/back-42$/m);
  expect(await screenOf(page)).not.toMatch(/slept-42$/m);
});
