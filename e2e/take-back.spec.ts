// The people in charge have the last word (issue 13): the admin takes an agent's shell from
// the operator holding it with the same Take over, and the operator is told; an idle hold
// goes back to the agent after a warning; the owner disconnects a link holder, whose link
// still works.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, openShell, test } from './support/fixtures.ts';
import {
  type ServerProcess,
  startServerProcess,
  stopServerProcess,
} from './support/server-process.ts';
import { createLink, joinByLink, openOwnShell, viewerEntry } from './support/sharing.ts';

test('the admin takes the controls from an operator, who is told who took them', async ({
  page,
  browser,
  jumpseat,
  agent,
}) => {
  await jumpseat.bashOk(agent, 'true');
  await jumpseat.login(page, await jumpseat.mint('operator', 'Ann'));
  await openShell(page, jumpseat, agent);
  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(page.getByRole('button', { name: 'Release' })).toBeVisible();

  const admin = await jumpseat.person(browser, process.env.JUMPSEAT_E2E_TOKEN ?? '');
  await openShell(admin, jumpseat, agent);
  await expect(admin.getByTestId('controller')).toHaveText('Ann has control');
  // Not "Ask for control": the admin is offered the same Take over, and it works.
  await expect(admin.getByRole('button', { name: 'Ask for control' })).toBeHidden();
  await admin.getByRole('button', { name: 'Take over' }).click();
  await expect(admin.getByTestId('controller')).toHaveText(
    'You have control — type in the terminal',
  );
  await expect(page.getByRole('alert').filter({ hasText: 'took the controls' })).toHaveText(
    'admin took the controls from you.',
  );
  await expect(page.getByTestId('controller')).toHaveText('admin has control');
  // Ann is not in charge: for her it is "Ask for control" now.
  await expect(page.getByRole('button', { name: 'Ask for control' })).toBeVisible();
  await admin.getByRole('button', { name: 'Release' }).click();
  await expect(page.getByTestId('controller')).toHaveText('The agent has the shell');
});

test('the owner disconnects a link holder without revoking the link', async ({
  page,
  browser,
  jumpseat,
}) => {
  await jumpseat.login(page, await jumpseat.mint('operator', 'Ann'));
  await openOwnShell(page);
  const url = await createLink(page, 'Watch only');
  const guest = await joinByLink(browser, jumpseat, url, 'Gus');
  const entry = viewerEntry(page, 'Gus');
  await expect(entry).toContainText('Gus (link)');
  await entry.getByRole('button', { name: 'Disconnect Gus' }).click();
  await expect(guest.getByRole('alert').filter({ hasText: 'disconnected you' })).toHaveText(
    'Ann disconnected you. Reload the page to join again.',
  );
  await expect(guest.getByTestId('connection')).toHaveAttribute('data-state', 'closed');
  await expect(entry).toHaveCount(0);
  // The link was not revoked: reloading joins again.
  await guest.reload();
  await expect(guest.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await expect(viewerEntry(page, 'Gus')).toHaveCount(1);
});

test.describe('an idle hold', () => {
  let root: string;
  let server: ServerProcess | undefined;
  test.afterEach(async () => {
    if (server !== undefined) await stopServerProcess(server);
    rmSync(root, { recursive: true, force: true });
  });

  test('warns first, then goes back to the agent, whose next call runs', async ({ page }) => {
    test.setTimeout(120_000);
    root = mkdtempSync(join(tmpdir(), 'jumpseat-e2e-idle-'));
    const token = `js_e2e_${randomBytes(18).toString('hex')}`;
    // Short, so the hand-back happens during the test; the warning comes at half of it.
    server = await startServerProcess({
      dataDir: join(root, 'data'),
      token,
      flags: ['--control-idle-ms', '4000'],
    });
    const { origin } = server;
    const bash = async (command: string) => {
      const response = await fetch(`${origin}/api/agents/idle-e2e/bash`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ command }),
      });
      return { status: response.status, body: (await response.json()) as { output?: string } };
    };
    expect((await bash('true')).status).toBe(200);
    const sessions = (await (
      await fetch(`${origin}/api/sessions`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { id: string }[];
    await page.goto(`${origin}/login?token=${token}`);
    await expect(page).toHaveURL(`${origin}/`);
    await page.goto(`${origin}/sessions/${sessions[0]?.id}`);
    await page.getByRole('button', { name: 'Take over' }).click();
    await expect(page.getByRole('button', { name: 'Release' })).toBeVisible();
    expect((await bash('echo blocked')).status).toBe(409);
    await expect(page.getByTestId('idle-warning')).toHaveText(
      'No keystroke for a while: the controls go back to the agent in 2 s unless you type.',
    );
    await expect(page.getByRole('alert').filter({ hasText: 'went back to the agent' })).toHaveText(
      'You typed nothing for a while, so the controls went back to the agent.',
    );
    await expect(page.getByTestId('idle-warning')).toBeHidden();
    await expect(page.getByTestId('controller')).toHaveText('The agent has the shell');
    expect((await bash('echo free')).body.output).toBe('free');
  });
});
