/**
 * The dashboard with many shells: the Filter box (agent, owner, command, state), needs a human
 * and running first by default, sorting by a column, grouping, the counts per state that
 * narrow the list, and "needs a human" only once a shell has waited past the threshold.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './support/fixtures.ts';

const rowsOf = (page: Page) => page.locator('[data-testid="session-row"]');

test('finds the shell that needs a human in two interactions, filters, sorts and groups', async ({
  page,
  jumpseat,
  agent,
}) => {
  test.slow();
  const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'].map(
    (n) => `${agent}-${n}`,
  );
  for (const name of names) await jumpseat.bashOk(name, `echo ready-${name}`);
  const stop = `${jumpseat.workspace}/${agent}.stop`;
  const running = jumpseat.bash(names[4] ?? '', `until [ -e ${stop} ]; do sleep 0.05; done`);
  expect((await jumpseat.bash(names[1] ?? '', "read -p 'Deploy? ' yn")).output).toBe(
    'Deploy? \n[waiting for input: bash]',
  );

  await jumpseat.login(page);
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  // Interaction one: type in the Filter box. The shell calling for a human is the first row.
  await page.getByLabel('Filter').fill(agent);
  await expect(rowsOf(page)).toHaveCount(6);
  await expect(rowsOf(page).first()).toHaveAttribute('data-agent', names[1] ?? '');
  await expect(rowsOf(page).first()).toHaveAttribute('data-needs-human', 'true');
  await expect(rowsOf(page).first().getByTestId('state')).toHaveText(
    'waiting for input — needs a human',
  );
  await expect(rowsOf(page).nth(1)).toHaveAttribute('data-state', 'running');
  await expect(rowsOf(page).nth(1)).toHaveAttribute('data-agent', names[4] ?? '');
  await expect(page.getByTestId('shown-count')).toHaveText(/^6( of \d+)? shells$/);
  // The header counts every state; one of them narrows the list to it.
  const needsCount = page.getByTestId('state-counts').locator('[data-state="needs_human"]');
  await expect(needsCount).toContainText(/\d+ needs? a human/);
  await needsCount.click();
  await expect(needsCount).toHaveAttribute('aria-pressed', 'true');
  await expect(rowsOf(page)).toHaveCount(1);
  await needsCount.click();
  await expect(rowsOf(page)).toHaveCount(6);

  // The filter matches command and state words too, all words at once.
  await page.getByLabel('Filter').fill(`${agent} until`);
  await expect(rowsOf(page)).toHaveCount(1);
  await expect(rowsOf(page).first()).toHaveAttribute('data-agent', names[4] ?? '');
  await page.getByLabel('Filter').fill(`${agent} idle`);
  await expect(rowsOf(page)).toHaveCount(4);
  await page.getByLabel('Filter').fill(`${agent}-nothing-like-it`);
  await expect(page.getByTestId('no-match')).toHaveText('No shell matches this filter.');
  await page.getByLabel('Filter').fill(agent);

  // Sorting by a column: ascending, then descending.
  const ownerHeader = page.getByRole('columnheader', { name: 'Agent or person' });
  await ownerHeader.getByRole('button').click();
  await expect(ownerHeader).toHaveAttribute('aria-sort', 'ascending');
  await expect
    .poll(() =>
      rowsOf(page).evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.agent)),
    )
    .toEqual(names);
  await ownerHeader.getByRole('button').click();
  await expect(ownerHeader).toHaveAttribute('aria-sort', 'descending');
  await expect
    .poll(() =>
      rowsOf(page).evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.agent)),
    )
    .toEqual([...names].reverse());
  // The view is in the address: a reload keeps it.
  await page.reload();
  await expect(page.getByLabel('Filter')).toHaveValue(agent);
  await expect(page.getByRole('columnheader', { name: 'Agent or person' })).toHaveAttribute(
    'aria-sort',
    'descending',
  );

  // Grouping by agent: one group per agent, each naming how many shells it holds.
  await page.getByLabel('Group').selectOption('agent');
  const groups = page.getByTestId('group-row');
  await expect(groups).toHaveCount(6);
  await expect(groups.first()).toContainText('1 shell');

  await jumpseat.bash(`${agent}-helper`, `touch ${stop}`);
  await running;
  await jumpseat.bash(names[1] ?? '', 'y');
});

test('a shell that answers its own prompt at once is never marked as needing a human', async ({
  page,
  jumpseat,
  agent,
}) => {
  await jumpseat.bash(agent, 'true');
  await jumpseat.login(page);
  await page.getByLabel('Filter').fill(agent);
  const row = rowsOf(page).first();
  await expect(row).toHaveAttribute('data-state', 'idle');
  // Every value the row's mark takes, recorded in the page as it changes.
  await row.evaluate((element) => {
    const seen: string[] = [];
    (window as unknown as { seenNeeds: string[] }).seenNeeds = seen;
    new MutationObserver(() =>
      seen.push(`${element.dataset.state}/${element.dataset.needsHuman}`),
    ).observe(element, { attributes: true, attributeFilter: ['data-state', 'data-needs-human'] });
  });
  expect((await jumpseat.bash(agent, 'read -p "name? " n')).output).toBe(
    'name? \n[waiting for input: bash]',
  );
  await expect(row).toHaveAttribute('data-state', 'waiting_input');
  // The agent answers a moment later, well before --needs-human-after-ms (2000 ms).
  expect((await jumpseat.bash(agent, 'bot')).output).toBe('');
  await expect(row).toHaveAttribute('data-state', 'idle');
  const seen = await page.evaluate(() => (window as unknown as { seenNeeds: string[] }).seenNeeds);
  expect(seen).toContain('waiting_input/false');
  expect(seen.filter((value) => value.endsWith('/true'))).toEqual([]);

  // Left waiting, the same shell is marked once the threshold has passed.
  await jumpseat.bash(agent, 'read -p "again? " n');
  await expect(row).toHaveAttribute('data-needs-human', 'true');
  await expect(page).toHaveTitle(/^\(\d+ waiting\) jumpseat$/);
  await jumpseat.bash(agent, 'done');
});
