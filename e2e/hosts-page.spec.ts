// The admin's Hosts page (issue 23) against a real control plane (`--local-shells off`) and a
// real `jumpseat host --join` process: the dashboard names the host of the agent's shell; the
// host is listed connected with its labels and its shell, links to its shells on the dashboard
// (host:NAME), is drained, refused forgetting while connected, stopped (by its pid) and seen
// unreachable, then forgotten. A phone gets it as a card.
import type { Page } from '@playwright/test';
import { HostCluster, PROCESS_START_MS, stopProcess } from '../server/test/support/host-cluster.ts';
import { expect, test } from './support/fixtures.ts';

/** Starting a control plane and a host from source, then a shell on it, on a loaded machine. */
const TEST_TIMEOUT_MS = 3 * PROCESS_START_MS;
/** The Hosts page asks again every 3 s; a state change shows by the next answer or so. */
const STATE_SHOWN_MS = 20_000;

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

test('the admin sees a joined host, drains it, sees it unreachable once stopped, and forgets it', async ({
  page,
  agent,
}) => {
  test.setTimeout(TEST_TIMEOUT_MS);
  const cluster = new HostCluster();
  try {
    await cluster.startControlPlane();
    const host = await cluster.startHost('build-1', [
      '--label',
      'gpu=1',
      '--label',
      'zone=eu',
      '--max-shells',
      '4',
    ]);
    expect((await cluster.call(agent, 'echo on-the-host')).output).toBe('on-the-host');
    const origin = cluster.origin;

    await page.goto(`${origin}/login?token=${encodeURIComponent(cluster.adminToken)}`);
    await expect(page).toHaveURL(`${origin}/`);
    // The dashboard's live stream names the host the agent's shell runs on.
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
    const shellRow = page.locator(`[data-testid="session-row"][data-agent="${agent}"]`);
    await expect(shellRow).toHaveAttribute('data-host', 'build-1');
    await expect(shellRow.locator('td[data-label="Host"]')).toHaveText('build-1');

    await page.getByTestId('hosts-link').click();
    await expect(page).toHaveURL(`${origin}/hosts`);
    const row = page.locator('[data-testid="host-row"][data-name="build-1"]');
    await expect(row).toHaveAttribute('data-state', 'connected');
    await expect(row.getByTestId('host-state')).toHaveText('connected');
    await expect(row.locator('td[data-label="Labels"]')).toHaveText('gpu=1 zone=eu');
    await expect(row.locator('td[data-label="Shells"]')).toHaveText('1 / 4');
    await expect(row.locator('td[data-label="Load"]')).toHaveText('25%');
    await expect(row.locator('td[data-label="Dialects"]')).toContainText('bash');
    await expect(row.locator('td[data-label="Versions"]')).toHaveText(/^link v\d+ · jumpseat \S+$/);
    await expect(row.locator('td[data-label="Last seen"]')).toHaveText(/^\d\d:\d\d:\d\d · .+ ago$/);
    await expect(page.getByTestId('no-hosts')).toBeHidden();
    await page.screenshot({ path: test.info().outputPath('hosts.png'), fullPage: true });

    // Its shells: the dashboard with the host's filter term.
    await row.getByRole('link', { name: '1 / 4' }).click();
    await expect(page).toHaveURL(`${origin}/?q=host%3Abuild-1`);
    await expect(page.getByLabel('Filter')).toHaveValue('host:build-1');
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
    await expect(page.getByTestId('session-row')).toHaveCount(1);
    await expect(shellRow.locator('td[data-label="Host"]')).toHaveText('build-1');
    await page.goBack();
    await expect(row).toHaveAttribute('data-state', 'connected');

    // A phone: the host as a card, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(row.getByTestId('host-state')).toBeVisible();
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: test.info().outputPath('phone-hosts.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    const drain = row.getByRole('button', { name: 'Drain', exact: true });
    const undrain = row.getByRole('button', { name: 'Undrain', exact: true });
    await drain.click();
    await expect(row).toHaveAttribute('data-state', 'draining');
    await expect(row.getByTestId('host-state')).toHaveText('draining');
    await expect(drain).toBeHidden();
    expect(await cluster.hostState('build-1')).toBe('draining');
    // A drain is lifted from the page too, and set again for what follows.
    await undrain.click();
    await expect(row).toHaveAttribute('data-state', 'connected');
    await expect(undrain).toBeHidden();
    expect(await cluster.hostState('build-1')).toBe('connected');
    await drain.click();
    await expect(row).toHaveAttribute('data-state', 'draining');

    // A connected host is not forgotten: the server's reason is shown.
    await row.getByRole('button', { name: 'Forget', exact: true }).click();
    await row.getByRole('button', { name: 'Forget build-1' }).click();
    await expect(page.getByTestId('notice-line')).toHaveText(
      'build-1 was not forgotten: host build-1 is connected; stop it first (drain it to move new shells elsewhere)',
    );
    await expect(row).toBeVisible();

    await stopProcess(host.process);
    await expect(row).toHaveAttribute('data-state', 'unreachable', { timeout: STATE_SHOWN_MS });
    await expect(row.getByTestId('host-state')).toHaveText('unreachable');

    await row.getByRole('button', { name: 'Forget', exact: true }).click();
    await row.getByRole('button', { name: 'Forget build-1' }).click();
    await expect(row).toHaveCount(0);
    await expect(page.getByTestId('notice-line')).toHaveText('');
    await expect(page.getByTestId('no-hosts')).toContainText(
      'No shell host has joined, and this control plane runs no shells itself (--local-shells off)',
    );
    expect(await cluster.hostState('build-1')).toBeUndefined();
  } finally {
    // Every process the cluster started (the host, if still up, and the control plane), by pid.
    await cluster.close();
  }
});
