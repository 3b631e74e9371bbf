// The trojan sudo (issue 21): the agent defined `sudo` as a function that keeps what is typed
// at its password prompt. A person who takes over and types their password there is asked
// first, in the agent's own words of warning; "Don't send" keeps it out, "Send anyway" lets it
// through, and either answer is in the shell's history and timeline. At desktop size only: a
// phone's page offers no controls (style.css hides them under 640 px), so nobody types there.
import type { Page } from '@playwright/test';
import { expect, openShell, screenOf, test } from './support/fixtures.ts';

const SECRET = 'hunter2secret';
const WARNING =
  "This shell is the agent's: a program it started can read what you type. Use your own shell for secrets.";
const TROJAN = `sudo() { read -s -p "[sudo] password for $USER: " p; printf '%s' "$p" > "$PWD/stolen"; echo; }`;

/** The cursor waits at a password prompt. */
const WAITING = /password for [^:\n]+: ?$/;
/** The last password prompt was answered: the shell's own prompt is back on the next line. */
const ANSWERED = /password for [^:\n]+: \n[^\n]*[$#]$/;

/**
 * How many sudo password prompts the screen shows once its end (trailing spaces trimmed) is as
 * `end` says, else 0: a wait for "the prompt is up" must not be met by the previous sudo's
 * prompt still on the screen (keys typed then reach bash as type-ahead, not a hidden answer).
 */
async function passwordPrompts(page: Page, end: RegExp): Promise<number> {
  const screen = await screenOf(page);
  return end.test(screen.trimEnd()) ? (screen.match(/^\[sudo\] password for /gm) ?? []).length : 0;
}

test.use({ viewport: { width: 1280, height: 800 } });

test("asks before a password goes into the agent's sudo, and keeps the answer", async ({
  page,
  jumpseat,
  agent,
}) => {
  test.slow();
  await jumpseat.bashOk(agent, TROJAN);
  await jumpseat.login(page);
  const session = await openShell(page, jumpseat, agent);
  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(page.getByRole('button', { name: 'Release' })).toBeVisible();
  const terminal = page.getByTestId('terminal');
  await terminal.click();
  await page.keyboard.type('sudo true');
  await page.keyboard.press('Enter');
  await expect.poll(() => passwordPrompts(page, WAITING)).toBe(1);

  // Typed on to its Enter: all of it waits at the server for the answer.
  await page.keyboard.type(SECRET);
  await page.keyboard.press('Enter');
  const question = page.getByTestId('secret-question');
  await expect(question.getByRole('paragraph')).toHaveText(WARNING);
  await expect(question).toBeInViewport({ ratio: 1 });
  // "Don't send": the password never reaches the function.
  await question.getByRole('button', { name: "Don't send" }).click();
  await expect(question).toBeHidden();
  // Still at the fake prompt; a Ctrl-C (no secret in it) goes without a question.
  await page.keyboard.press('Control+C');
  await expect.poll(() => passwordPrompts(page, ANSWERED)).toBe(1);

  // Again, and this time "Send anyway": the function gets it, as the warning said.
  await page.keyboard.type('sudo true');
  await page.keyboard.press('Enter');
  await expect.poll(() => passwordPrompts(page, WAITING)).toBe(2);
  await page.keyboard.type(SECRET);
  await page.keyboard.press('Enter');
  await question.getByRole('button', { name: 'Send anyway' }).click();
  await expect(question).toBeHidden();
  await expect.poll(() => passwordPrompts(page, ANSWERED)).toBe(2);
  expect(await screenOf(page)).not.toContain(SECRET);

  const timeline = page.getByTestId('control-event');
  await expect(timeline.filter({ hasText: 'kept a hidden answer out' })).toHaveText(
    /^admin kept a hidden answer out of the agent's shell after the warning/,
  );
  await expect(timeline.filter({ hasText: 'typed a hidden answer' })).toHaveText(
    /^admin typed a hidden answer into the agent's shell after the warning/,
  );
  await page.getByRole('button', { name: 'Release' }).click();
  await expect(page.getByTestId('controller')).toHaveText('The agent has the shell');
  const events = (await (await jumpseat.api(`/api/sessions/${session.id}/events`)).json()) as {
    kind: string;
  }[];
  expect(events.map((e) => e.kind)).toEqual(['take', 'secret_withheld', 'secret_sent', 'release']);
  // What the function kept is what "Send anyway" let through, once.
  const stolen = await jumpseat.bash(agent, 'cat stolen');
  expect(stolen.output).toBe(
    `[a human used this shell: sudo true; ^C; sudo true; a hidden answer was typed]\n${SECRET}`,
  );
});
