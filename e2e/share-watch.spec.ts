// Sharing by link, watch only: a person opens a shell of their own from the dashboard and
// holds the controls at once; a second person opens a watch-only link in another browser,
// gives their name, sees the shell live and who types, and their keys go nowhere.
import { randomBytes } from 'node:crypto';
import { expect, screenOf, test } from './support/fixtures.ts';
import {
  createLink,
  joinByLink,
  openOwnShell,
  run,
  typeLine,
  viewerEntry,
} from './support/sharing.ts';

test('a watch-only link shows the shell live to a second browser that cannot type', async ({
  page,
  browser,
  jumpseat,
}) => {
  // Two people's browsers and a real shell: more steps than most specs, so more time on a busy CI box.
  test.slow();
  const dir = `/tmp/js-e2e-share-${randomBytes(3).toString('hex')}`;
  await jumpseat.login(page, await jumpseat.mint('operator', 'Ann'));
  const sessionId = await openOwnShell(page);
  await expect(page.locator('.session-title')).toHaveText('Ann (person) · bash');
  await run(page, `cd /tmp && mkdir -p ${dir} && cd ${dir} && pwd`, 'cd');
  await expect.poll(() => screenOf(page)).toMatch(new RegExp(`^${dir}$`, 'm'));

  const url = await createLink(page, 'Watch only');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByTestId('share-panel').getByRole('button', { name: 'Copy' }).click();
  await expect(
    page.getByTestId('share-panel').getByRole('button', { name: 'Copied' }),
  ).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  const share = page.getByTestId('share');
  await expect(share).toHaveAttribute('data-role', 'viewer');
  await expect(share).toContainText('not opened yet');

  const bob = await joinByLink(browser, jumpseat, url, 'Bob');
  expect(new URL(bob.url()).pathname).toBe(`/sessions/${sessionId}`);
  await expect.poll(() => screenOf(bob)).toMatch(new RegExp(`^${dir}$`, 'm'));
  await expect(bob.getByTestId('controller')).toHaveText('Ann has control');
  await expect(bob.getByRole('button', { name: 'Take over' })).toBeDisabled();
  await expect(bob.getByRole('button', { name: 'Ask for control' })).toBeHidden();
  await expect(bob.getByTestId('share-panel')).toBeHidden();
  // A link's holder reaches one shell: the page offers no way to the dashboard.
  await expect(bob.locator('a.brand')).not.toHaveAttribute('href', /.*/);

  for (const person of [page, bob]) {
    await expect(viewerEntry(person, 'Ann')).toHaveAttribute('data-typing', 'true');
    await expect(viewerEntry(person, 'Bob')).toHaveAttribute('data-typing', 'false');
  }
  await expect(viewerEntry(bob, 'Bob')).toContainText('(you)');
  await expect(share).toHaveAttribute('data-holder', 'Bob');

  // Live: what Ann types now appears on Bob's screen as she runs it.
  await run(page, 'echo from-ann-$((6*7))', 'ann');
  await expect.poll(() => screenOf(bob)).toMatch(/^from-ann-42$/m);

  await typeLine(bob, 'touch bob-was-here; echo bob-typed');
  // Ann's next command is the sync point: by its end Bob's keys went wherever they went.
  await run(page, 'ls bob-was-here 2>&1', 'check');
  await expect.poll(() => screenOf(bob)).toMatch(/^check-done-42$/m);
  expect(await screenOf(page)).toContain("ls: cannot access 'bob-was-here'");
  expect(await screenOf(bob)).not.toContain('bob-typed');
});
