/**
 * The session page tells the story as it happens: the running call at the top of the timeline
 * with its elapsed time and the tail of what it prints (also for a page opened mid-call),
 * take, release and interrupt in every watcher's timeline as they happen, notices styled by
 * tone, and a toolbar that stays on one line so the terminal does not jump.
 */
import { expect, openShell, test } from './support/fixtures.ts';

test('the running call is at the top with its elapsed time and live output tail', async ({
  page,
  jumpseat,
  agent,
}) => {
  await jumpseat.bashOk(agent, 'echo ready');
  await jumpseat.login(page);
  await openShell(page, jumpseat, agent);
  const stop = `${jumpseat.workspace}/${agent}.stop`;
  const command = `for i in 1 2 3; do echo tick-$i; sleep 0.3; done; until [ -e ${stop} ]; do sleep 0.05; done; echo finished`;
  const call = jumpseat.bash(agent, command);
  const running = page.getByTestId('call-running');
  await expect(running).toBeVisible();
  await expect(running.locator('.call-command')).toHaveAttribute('title', command);
  await expect(running.locator('.running-clock')).toHaveText(/^\d+ s$/);
  await expect(page.getByTestId('call-tail')).toContainText('tick-3');

  // A page opened while the call runs shows it too (not "No calls yet.").
  await page.reload();
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await expect(running).toBeVisible();
  await expect(running.locator('.call-command')).toHaveAttribute('title', command);
  await expect(page.getByTestId('call-tail')).toContainText('tick-3');

  await jumpseat.bash(`${agent}-helper`, `touch ${stop}`);
  expect((await call).output).toBe('tick-1\ntick-2\ntick-3\nfinished');
  await expect(running).toBeHidden();
  await expect(page.getByTestId('call').first()).toHaveAttribute('data-outcome', 'completed');
});

test('take, release and interrupt appear in every watcher’s timeline as they happen', async ({
  page,
  browser,
  jumpseat,
  agent,
}) => {
  test.slow();
  await jumpseat.bashOk(agent, 'echo ready');
  await jumpseat.login(page, await jumpseat.mint('operator', 'Ann'));
  await openShell(page, jumpseat, agent);
  const watcher = await jumpseat.person(browser, await jumpseat.mint('viewer', 'Vic'));
  await openShell(watcher, jumpseat, agent);

  // The terminal stays where it is when the toolbar changes (Release and Fit appear).
  const terminalTop = async () => (await page.getByTestId('terminal').boundingBox())?.y;
  const before = await terminalTop();
  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(page.getByRole('button', { name: 'Release' })).toBeVisible();
  expect(await terminalTop()).toBe(before);
  const toolbar = await page.getByRole('toolbar', { name: 'Shell controls' }).boundingBox();
  expect(toolbar?.height ?? 0).toBeLessThan(48);

  for (const person of [page, watcher]) {
    const take = person.locator('[data-testid="control-event"][data-kind="take"]');
    await expect(take).toHaveCount(1);
    await expect(take).toContainText('Ann took the controls');
  }
  await page.getByRole('button', { name: 'Release' }).click();
  for (const person of [page, watcher]) {
    await expect(person.locator('[data-testid="control-event"]').first()).toHaveAttribute(
      'data-kind',
      'release',
    );
  }
  const call = jumpseat.bash(agent, 'sleep 300');
  await expect(page.getByTestId('call-running')).toBeVisible();
  await page.getByRole('button', { name: 'Interrupt' }).click();
  expect((await call).output).toContain('[exit code: 130]');
  for (const person of [page, watcher]) {
    const interrupt = person.locator('[data-testid="control-event"][data-kind="interrupt"]');
    await expect(interrupt).toHaveText(/Ann interrupted the running command/);
  }
  // Newest first: the interrupt, the call it ended (which started before it), release, take.
  const story = watcher.locator('[data-testid="calls"] > li');
  await expect(story.nth(0)).toHaveAttribute('data-kind', 'interrupt');
  await expect(story.nth(1)).toHaveAttribute('data-exit-code', '130');
  await expect(story.nth(2)).toHaveAttribute('data-kind', 'release');
  await expect(story.nth(3)).toHaveAttribute('data-kind', 'take');
});

test('information and warnings are styled apart in the notice line', async ({
  page,
  browser,
  jumpseat,
  agent,
}) => {
  test.slow();
  await jumpseat.bashOk(agent, 'echo ready');
  await jumpseat.login(page, await jumpseat.mint('operator', 'Ann'));
  await openShell(page, jumpseat, agent);
  const bob = await jumpseat.person(browser, await jumpseat.mint('operator', 'Bob'));
  await openShell(bob, jumpseat, agent);
  const cy = await jumpseat.person(browser, await jumpseat.mint('viewer', 'Cy'));
  await openShell(cy, jumpseat, agent);

  await page.getByRole('button', { name: 'Take over' }).click();
  await bob.getByRole('button', { name: 'Ask for control' }).click();
  const prompt = page.getByTestId('control-request');
  await prompt.getByRole('button', { name: 'Keep' }).click();
  const bobNotice = bob.getByTestId('notice-line');
  await expect(bobNotice).toHaveText('Ann kept the controls.');
  await expect(bobNotice).toHaveAttribute('data-tone', 'warning');
  await expect(bobNotice).toHaveAttribute('role', 'alert');

  await bob.getByRole('button', { name: 'Ask for control' }).click();
  await prompt.getByRole('button', { name: 'Hand over' }).click();
  const cyNotice = cy.getByTestId('notice-line');
  await expect(cyNotice).toHaveText('Bob has the controls now.');
  await expect(cyNotice).toHaveAttribute('data-tone', 'info');
  await expect(cyNotice).toHaveAttribute('role', 'status');
  const colour = (notice: typeof cyNotice) =>
    notice.evaluate((element) => getComputedStyle(element).backgroundColor);
  expect(await colour(cyNotice)).not.toBe(await colour(bobNotice));
  await bob.getByRole('button', { name: 'Release' }).click();
});
