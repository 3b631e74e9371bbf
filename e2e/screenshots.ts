// Not part of `npm test`: `npm run screenshots` refreshes docs/dashboard.png,
// docs/session.png, docs/replay.png, docs/phone-dashboard.png and docs/share.png from a real
// server with real shells.
import { expect, openShell, screenOf, test } from './support/fixtures.ts';
import { createLink, joinByLink, openOwnShell, typeLine } from './support/sharing.ts';

test('screenshots of the dashboard and the session page', async ({ browser, jumpseat }) => {
  const setup = [
    "mkdir -p app/src && cd app && printf 'export const answer = 42;\\n' > src/answer.ts",
    "printf '\\e[1mRunning 3 test files\\e[0m\\n \\e[32m✓\\e[0m src/answer.test.ts (2)\\n \\e[32m✓\\e[0m src/shell.test.ts (14)\\n \\e[31m✗\\e[0m src/live.test.ts (1 failed)\\n\\n\\e[31mTests  1 failed | 16 passed\\e[0m\\n'; (exit 1)",
    'ls -la src',
  ];
  for (const command of setup) await jumpseat.bash('builder', command);
  await jumpseat.bash('research', 'curl --version | head -1; uname -sr');
  await jumpseat.bash('deploy', "read -p 'Deploy to production? [y/N] ' answer");
  const running = jumpseat.bash('research', 'sleep 20; echo done');

  const light = await browser.newContext({
    colorScheme: 'light',
    viewport: { width: 1280, height: 800 },
  });
  const dashboard = await light.newPage();
  await jumpseat.login(dashboard);
  await expect(dashboard.locator('[data-agent="deploy"]')).toHaveAttribute(
    'data-state',
    'waiting_input',
  );
  await expect(dashboard.locator('[data-agent="research"]')).toHaveAttribute(
    'data-state',
    'running',
  );
  await expect(dashboard.locator('[data-agent="deploy"]')).toHaveAttribute(
    'data-needs-human',
    'true',
  );
  await dashboard.screenshot({ path: 'docs/dashboard.png' });

  const dark = await browser.newContext({
    colorScheme: 'dark',
    viewport: { width: 1280, height: 800 },
  });
  const session = await dark.newPage();
  await jumpseat.login(session, await jumpseat.mint('operator', 'Ann'));
  await openShell(session, jumpseat, 'builder');
  await expect.poll(() => screenOf(session)).toContain('answer.ts');
  await session.getByTestId('call').nth(1).locator('summary').click();
  await session.screenshot({ path: 'docs/session.png' });

  const replay = await light.newPage();
  await jumpseat.login(replay);
  await replay.goto(`/sessions/${(await jumpseat.sessionOf('builder')).id}/replay`);
  await replay.getByTestId('replay-call').nth(1).getByTestId('replay-jump').click();
  await expect.poll(() => screenOf(replay)).toContain('Tests  1 failed');
  await replay.screenshot({ path: 'docs/replay.png' });

  const phone = await browser.newContext({
    colorScheme: 'light',
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  const cards = await phone.newPage();
  await jumpseat.login(cards);
  await expect(cards.locator('[data-agent="deploy"]')).toHaveAttribute('data-needs-human', 'true');
  await cards.screenshot({ path: 'docs/phone-dashboard.png' });

  await jumpseat.bash('deploy', '\u0003');
  await running;
  await light.close();
  await dark.close();
  await phone.close();
});

test('screenshot of a shell shared by link', async ({ browser, jumpseat }) => {
  const light = await browser.newContext({
    colorScheme: 'light',
    viewport: { width: 1280, height: 800 },
  });
  const ann = await light.newPage();
  await jumpseat.login(ann, await jumpseat.mint('operator', 'Ann'));
  await openOwnShell(ann);
  const lines: [string, RegExp][] = [
    [
      "mkdir -p /tmp/flaky && cd /tmp/flaky && printf 'GET /health 200\\nGET /orders 502\\nGET /orders 502\\n' > access.log && clear",
      /^\/tmp\/flaky# *$/m,
    ],
    ["grep -c ' 502' access.log", /^2$/m],
    ['tail -n 2 access.log', /^GET \/orders 502\nGET \/orders 502$/m],
  ];
  for (const [line, shown] of lines) {
    await typeLine(ann, line);
    await expect.poll(() => screenOf(ann)).toMatch(shown);
  }
  await createLink(ann, 'Watch and type');
  const bob = await joinByLink(
    browser,
    jumpseat,
    await ann.getByTestId('share-link').inputValue(),
    'Bob',
  );
  await bob.getByRole('button', { name: 'Ask for control' }).click();
  await expect(ann.getByTestId('control-request')).toBeVisible();
  await expect(ann.getByTestId('share')).toHaveAttribute('data-holder', 'Bob');
  await ann.screenshot({ path: 'docs/share.png' });
  await light.close();
});
