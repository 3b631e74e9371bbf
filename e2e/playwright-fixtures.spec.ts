// jumpseat/playwright's fixtures as a test author uses them, on the run's server: the exact
// tool result of `run`, typing as a person into a prompt and a TUI, the retrying matchers,
// a screen snapshot, several shells kept apart, and the shell live in the test's browser.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { attachShell } from '../playwright/src/failure-attachments.ts';
import { expect, test } from '../playwright/src/index.ts';
import { processesRunning } from '../server/test/support/host-processes.ts';

test('run gives back the exact tool result text', async ({ shell }) => {
  expect(await shell.run('echo hi; (exit 3)')).toBe('hi\n[exit code: 3]');
  expect(await shell.run('cd /tmp && export GREETING=kept')).toBe('');
  // Persistent: the directory and the variable are still there.
  expect(await shell.run('pwd; echo $GREETING')).toBe('/tmp\nkept');
});

test('type answers a read prompt as a person, and the agent is told', async ({ shell }) => {
  expect(await shell.run('read -p \'Name? \' name; echo "hello $name"')).toBe(
    'Name? \n[waiting for input: bash]',
  );
  await shell.type('Ada\n');
  await expect(shell).toShowText(/^hello Ada$/m);
  // The person handed the shell back: the agent's next call runs, and says a human was here.
  expect(await shell.run('echo "name=$name"')).toMatch(
    /^\[a human used this shell: .*\]\nname=Ada$/,
  );
});

test('press drives a full-screen program (less) with its keys', async ({ shell }) => {
  await shell.run('seq 1 500 > numbers.txt');
  await shell.run('less numbers.txt');
  await expect(shell).toShowText(/^1\n2\n3$/m);
  await shell.press('G'); // to the end
  await expect(shell).toShowText(/^500$/m);
  await shell.press('g'); // back to the top
  await shell.press('ArrowDown'); // one line on (an application cursor key in less)
  await expect(shell).toShowText(/^2\n3\n4$/m);
  await expect(shell).not.toShowText(/^1$/m);
  await shell.press('q');
  // Back at the prompt (as a person waits to see it before the agent goes on).
  await expect(shell).toShowText(/less numbers\.txt\n.*[#$]$/);
  expect(await shell.run('echo back')).toMatch(/back$/);
});

test('Control+C stops what the shell runs, typed as a person', async ({ shell }) => {
  await shell.run('echo started');
  await shell.type('sleep 600; echo not-interrupted\n');
  await expect(shell).toShowText('sleep 600; echo not-interrupted');
  await shell.press('Control+C');
  // The prompt is back under the line, mostly with the `^C` the terminal or the line editor
  // echoed; a key that comes just as bash leaves its line editor is echoed by neither.
  await expect(shell).toShowText(/echo not-interrupted(\^C)?\n(\^C\n)?[#$]$/);
  await shell.type('echo after-$((40+2))\n');
  // The line typed after the interrupt is echoed as at a terminal, then its output.
  await expect(shell).toShowText(/[#$] echo after-\$\(\(40\+2\)\)\nafter-42$/m);
  await expect(shell).not.toShowText(/^not-interrupted$/m);
});

test('toShowText fails after its timeout with the screen in the message', async ({ shell }) => {
  await shell.run('echo something-else');
  const failure = await expect(shell)
    .toShowText('never printed', { timeout: 500 })
    .then(() => null)
    .catch((error: unknown) => error);
  expect(String(failure)).toContain('toShowText("never printed") failed after 500 ms');
  expect(String(failure)).toMatch(/│ something-else/);
});

test('toMatchScreenSnapshot compares the screen with its snapshot file', async ({ shell }) => {
  // A prompt of its own and a cleared screen: the snapshot holds no temporary path.
  await shell.type("PS1='> '; clear\n");
  await expect(shell).toShowText(/^>$/);
  await shell.type("printf 'one\\ntwo\\n'\n");
  await expect(shell).toMatchScreenSnapshot('two-lines');
});

test('toMatchScreenSnapshot fails with a diff when the screen differs', async ({ shell }) => {
  // A snapshot written here and removed after: the repository keeps no wrong snapshot.
  const path = test.info().snapshotPath('differs.txt');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, 'not this screen\n');
  try {
    await shell.run('echo the-real-screen');
    const failure = await expect(shell)
      .toMatchScreenSnapshot('differs', { timeout: 500 })
      .then(() => null)
      .catch((error: unknown) => String(error));
    expect(failure).toContain('toMatchScreenSnapshot("differs.txt") failed after 500 ms');
    expect(failure).toContain('not this screen');
    expect(failure).toContain('Run with --update-snapshots');
  } finally {
    rmSync(path);
  }
});

test('shells of one test are apart, as are tests', async ({ shell, openShell }) => {
  const other = await openShell();
  expect(other.agent).not.toBe(shell.agent);
  await shell.run('export WHO=first');
  expect(await other.run('echo "who=$WHO"')).toBe('who=');
  expect(await shell.run('echo "who=$WHO"')).toBe('who=first');
  expect(other.sessionId).not.toBe(shell.sessionId);
});

test('after the shell exits, typing says so and run starts its successor', async ({ shell }) => {
  await shell.run('echo first');
  await expect(shell).toShowText(/^first$/m);
  const first = shell.sessionId;
  expect(await shell.run('exit 4')).toContain('[shell exited: code 4]');
  await expect(shell.type('echo lost\n')).rejects.toThrow(/^could not take the controls: /);
  expect(await shell.run('echo second')).toBe('second');
  expect(shell.sessionId).not.toBe(first);
  await shell.type('echo typed-$((1+1))\n');
  await expect(shell).toShowText(/^typed-2$/m);
});

test('what a failed test attaches, with the replay link of a named server', async ({
  shell,
  jumpseat,
  page,
}) => {
  // The run's server is named by JUMPSEAT_URL: it outlives the run, so reports link to it.
  expect(jumpseat.persistent).toBe(true);
  await shell.run('echo for-the-report');
  const info = test.info();
  await attachShell(info, shell, 'probe', jumpseat.url);
  const attached = new Map(info.attachments.map((a) => [a.name, a]));
  expect([...attached.keys()].filter((name) => name.startsWith('probe'))).toEqual([
    'probe.cast',
    'probe-calls.json',
    'probe-screen.txt',
    'probe-replay',
  ]);
  // The stable prompt, and the screen cleared before the test's first call.
  expect(readFileSync(attached.get('probe-screen.txt')?.path ?? '', 'utf8')).toBe(
    '$ echo for-the-report\nfor-the-report\n$',
  );
  // Written once: Playwright's copy under attachments/, nothing beside it.
  expect(readdirSync(info.outputDir)).toEqual(['attachments']);
  expect(readdirSync(join(info.outputDir, 'attachments'))).toHaveLength(3);
  // The fixture's prompt call is its own, not the test's.
  const calls = JSON.parse(readFileSync(attached.get('probe-calls.json')?.path ?? '', 'utf8'));
  expect(calls.map((call: { command: string }) => call.command)).toEqual(['echo for-the-report']);
  const replay = attached.get('probe-replay')?.body?.toString() ?? '';
  expect(replay).toBe(`${jumpseat.url}/sessions/${shell.sessionId}/replay`);
  await page.goto(jumpseat.loginUrl());
  await page.waitForURL(`${jumpseat.url}/`);
  await page.goto(replay);
  await expect(page.getByTestId('replay-controls')).toBeVisible();
});

test('watch(page) shows the shell live in the browser, logged in', async ({ shell, page }) => {
  await shell.run('echo before-watch');
  await shell.watch(page);
  await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
  await expect
    .poll(() => page.evaluate(() => window.jumpseat.terminalText()))
    .toContain('before-watch');
  await shell.run('echo while-watched');
  await expect
    .poll(() => page.evaluate(() => window.jumpseat.terminalText()))
    .toContain('while-watched');
});

test.describe('with test.use({ dialect: "pwsh" })', () => {
  test.use({ dialect: 'pwsh' });

  test('the shell is PowerShell, and keeps its state', async ({ shell, jumpseat }) => {
    const tools = (await jumpseat.client.tools('anthropic')) as { name?: string }[];
    const hasPwsh = tools.some((tool) => tool.name === 'pwsh');
    // In CI a missing pwsh is a failure; elsewhere the skip says why in the report.
    if (process.env.CI === 'true' || process.env.CI === '1')
      expect(hasPwsh, 'pwsh must be installed in CI').toBe(true);
    if (!hasPwsh) console.log('SKIPPED: this server runs no pwsh (install PowerShell 7)');
    test.skip(!hasPwsh, 'this server runs no pwsh (install PowerShell 7)');
    expect(shell.dialect).toBe('pwsh');
    expect(await shell.run('$answer = 6 * 7; "answer=$answer"')).toBe('answer=42');
    expect(await shell.run('$PSVersionTable.PSVersion.Major -ge 7')).toBe('True');
    await shell.type('Write-Output "typed-$answer"\n');
    await expect(shell).toShowText(/^typed-42$/m);
  });
});

test.describe('after a test', () => {
  test.describe.configure({ mode: 'serial' });
  let left: { id: string; agent: string } | undefined;

  test('a test leaves a program running in its shell', async ({ shell }) => {
    await shell.run('echo started');
    await shell.type('sleep 8181\n');
    await expect(shell).toShowText('sleep 8181');
    await expect.poll(() => processesRunning('sleep', '8181').length).toBe(1);
    left = { id: shell.sessionId ?? '', agent: shell.agent };
  });

  test('its shell has been ended, the program with it', async ({ jumpseat }) => {
    expect(left).toBeDefined();
    const session = await jumpseat.client.session(left?.id ?? '');
    expect([session.agent, session.state]).toEqual([left?.agent, 'exited']);
    expect(processesRunning('sleep', '8181')).toEqual([]);
  });
});
