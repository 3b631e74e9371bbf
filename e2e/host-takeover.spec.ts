// A person takes over a shell on a joined host and hands it back (issue 23): a real control
// plane (`--local-shells off`) and a real `jumpseat host --join` process. The admin opens the
// agent's shell from the dashboard, sees its screen through the host's link, takes over (the
// agent is refused meanwhile), types a command that runs on the host, and releases; the
// agent's next call is told what the person ran and keeps the shell's state, and the shell's
// timeline on the control plane shows the calls and who held the controls.
import { HostCluster, PROCESS_START_MS } from '../server/test/support/host-cluster.ts';
import { expect, screenOf, test } from './support/fixtures.ts';

/** Starting a control plane and a host from source, then a shell on it, on a loaded machine. */
const TEST_TIMEOUT_MS = 3 * PROCESS_START_MS;

test('a person takes over a shell on a joined host, types, and hands it back', async ({
  page,
  agent,
}) => {
  test.setTimeout(TEST_TIMEOUT_MS);
  const cluster = new HostCluster();
  try {
    await cluster.startControlPlane();
    await cluster.startHost('far-1');
    expect(await cluster.call(agent, 'cd /tmp && echo on-host-$((40+2))')).toEqual({
      status: 200,
      output: 'on-host-42',
    });
    const origin = cluster.origin;
    await page.goto(`${origin}/login?token=${encodeURIComponent(cluster.adminToken)}`);
    const row = page.locator(`[data-testid="session-row"][data-agent="${agent}"]`);
    await expect(row).toHaveAttribute('data-host', 'far-1');
    await row.getByRole('link').first().click();
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
    await expect.poll(() => screenOf(page)).toContain('on-host-42');

    await page.getByRole('button', { name: 'Take over' }).click();
    await expect(page.getByRole('button', { name: 'Release' })).toBeVisible();
    const refused = await cluster.call(agent, 'echo agent');
    expect(refused.status).toBe(409);
    expect(refused.error?.code).toBe('HUMAN_CONTROL');
    await page.getByTestId('terminal').click();
    await page.keyboard.insertText('export FROM=person; echo typed-$((6*7))');
    await page.keyboard.press('Enter');
    await expect.poll(() => screenOf(page)).toMatch(/^typed-42$/m);

    await page.getByRole('button', { name: 'Release' }).click();
    await expect(page.getByTestId('controller')).toHaveText('The agent has the shell');
    expect(await cluster.call(agent, 'echo "$FROM in $PWD"')).toEqual({
      status: 200,
      output: '[a human used this shell: export FROM=person; echo typed-$((6*7))]\nperson in /tmp',
    });
    // The agent's call shows live, and tops the timeline (newest first).
    await expect.poll(() => screenOf(page)).toContain('person in /tmp');
    await expect(page.getByTestId('call-result').first()).toContainText('person in /tmp');
  } finally {
    await cluster.close();
  }
});
