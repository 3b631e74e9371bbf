/**
 * examples/playwright as a test author runs it: the package packed (`npm pack`), installed in
 * a copy of the example with @playwright/test (the version this repository uses), then
 * `npx playwright test`, which must pass; then a deliberately broken test, which must fail
 * with the shell's recording, calls and screen attached to the JSON and HTML reports, and
 * leave no jumpseat server behind. The native addons of jumpseat's dependencies are taken
 * from this repository's own build when the versions match (the package test compiles them
 * the way `npm install` does), which keeps this test well under two minutes.
 */
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from './support/cli-process.ts';
import { cleanEnv, mustRun, run } from './support/packed-install.ts';

/** Packing (a stale build included) and installing from the npm cache. */
const INSTALL_DEADLINE_MS = 240_000;
/** One run of the example's tests (a worker's server start included). */
const RUN_DEADLINE_MS = 120_000;
/** Addons that npm would compile on install. */
const NATIVE = ['node-pty', 'better-sqlite3'];
const EXAMPLE = join(REPO, 'examples', 'playwright');

let work: string;
let app: string;

function versionOf(root: string, name: string): string {
  const json = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'));
  return String((json as { version: unknown }).version);
}

/** jumpseat's servers started from the installed package (none may outlive a run). */
function serversOfApp(): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1');
    } catch {
      continue;
    }
    if (cmdline.includes(join(app, 'node_modules', 'jumpseat'))) found.push(Number(name));
  }
  return found;
}

/**
 * The recordings a failed run attached (its temporary directory is removed after the run):
 * the end of each, as the shell's output with its timing, to tell a CI failure's story.
 */
function failedCasts(): string {
  const results = join(app, 'test-results');
  if (!existsSync(results)) return '';
  const casts = readdirSync(results, { recursive: true, encoding: 'utf8' }).filter((name) =>
    name.endsWith('.cast'),
  );
  return casts
    .map((name) => {
      const lines = readFileSync(join(results, name), 'utf8').trimEnd().split('\n');
      return `\n--- ${name} (last 30 events of ${lines.length - 1})\n${lines.slice(-30).join('\n')}`;
    })
    .join('');
}

/** The test docs/playwright.md shows under `tests/hello.spec.ts` (it was the README's). */
function readmeTest(): string {
  const readme = readFileSync(join(REPO, 'docs', 'playwright.md'), 'utf8');
  const block = /`tests\/hello\.spec\.ts`:\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('docs/playwright.md has no tests/hello.spec.ts block');
  return block;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'jumpseat-playwright-example-'));
  const packed = await mustRun('npm', ['pack', '--silent', '--pack-destination', work], REPO);
  const tarball = join(work, packed.stdout.trim().split('\n').pop() ?? '');
  app = join(work, 'example');
  cpSync(EXAMPLE, app, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|test-results|playwright-report)$/.test(source),
  });
  // As a user starts: an empty dependency list, then one install of the two packages.
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  delete manifest.devDependencies;
  writeFileSync(join(app, 'package.json'), JSON.stringify(manifest, null, 2));
  const playwright = `@playwright/test@${versionOf(REPO, '@playwright/test')}`;
  await mustRun(
    'npm',
    [
      'install',
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      playwright,
    ],
    app,
  );
  const stale: string[] = [];
  for (const name of NATIVE) {
    if (versionOf(app, name) === versionOf(REPO, name)) {
      cpSync(join(REPO, 'node_modules', name, 'build'), join(app, 'node_modules', name, 'build'), {
        recursive: true,
      });
    } else stale.push(name);
  }
  if (stale.length > 0) await mustRun('npm', ['rebuild', ...stale], app);
  // The README's ten-line test, as a reader copies it.
  writeFileSync(join(app, 'tests', 'readme.spec.ts'), readmeTest());
}, INSTALL_DEADLINE_MS * 2);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('examples/playwright from the installed package', { timeout: RUN_DEADLINE_MS }, () => {
  it('passes with npx playwright test, two workers with a server each', async () => {
    const result = await run(
      'npx',
      ['playwright', 'test', '--reporter=list', '--workers=2', '--fully-parallel'],
      app,
      cleanEnv(),
      RUN_DEADLINE_MS,
    );
    expect(result.status, `${result.stdout}\n${result.stderr}${failedCasts()}`).toBe(0);
    expect(result.stdout).toMatch(/^ {2}6 passed/m);
    expect(result.stdout).toContain('using 2 workers');
    expect(serversOfApp()).toEqual([]);
  });

  it('type-checks against the types the package ships', async () => {
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = [
      '-p',
      '.',
      '--typeRoots',
      join(REPO, 'node_modules', '@types'),
      '--types',
      'node',
    ];
    const good = await run(process.execPath, [tsc, ...flags], app, cleanEnv(), RUN_DEADLINE_MS);
    expect([good.status, good.stdout]).toEqual([0, '']);
    // The types are real: a wrong use is an error, not an `any`.
    writeFileSync(
      join(app, 'tests', 'misuse.ts'),
      [
        "import { expect, test } from 'jumpseat/playwright';",
        "test('misuse', async ({ shell }) => {",
        "  const n: number = await shell.run('echo 1');",
        '  await expect(shell).toShowText(42);',
        '  return n;',
        '});',
        '',
      ].join('\n'),
    );
    const bad = await run(process.execPath, [tsc, ...flags], app, cleanEnv(), RUN_DEADLINE_MS);
    rmSync(join(app, 'tests', 'misuse.ts'));
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toContain("Type 'string' is not assignable to type 'number'");
    expect(bad.stdout).toContain(
      "Argument of type 'number' is not assignable to parameter of type 'string | RegExp'",
    );
  });

  it('fails a broken test with the recording, calls and screen in its report', async () => {
    writeFileSync(
      join(app, 'tests', 'broken.spec.ts'),
      [
        "import { expect, test } from 'jumpseat/playwright';",
        "test('a broken expectation', async ({ shell }) => {",
        "  await shell.run('echo actual-output-$((6*7))');",
        "  await expect(shell).toShowText('expected-output', { timeout: 1000 });",
        '});',
        '',
      ].join('\n'),
    );
    const result = await run(
      'npx',
      ['playwright', 'test', 'tests/broken.spec.ts', '--reporter=json,html'],
      app,
      cleanEnv({ PLAYWRIGHT_JSON_OUTPUT_NAME: 'report.json', PLAYWRIGHT_HTML_OPEN: 'never' }),
      RUN_DEADLINE_MS,
    );
    expect(result.status).toBe(1);
    const report = JSON.parse(readFileSync(join(app, 'report.json'), 'utf8')) as {
      suites: { specs: { tests: { results: TestResult[] }[] }[] }[];
    };
    interface TestResult {
      status: string;
      errors: { message?: string }[];
      attachments: { name: string; contentType: string; path?: string }[];
    }
    const [outcome] = report.suites[0]?.specs[0]?.tests[0]?.results ?? [];
    expect(outcome?.status).toBe('failed');
    expect(outcome?.errors[0]?.message).toContain('toShowText("expected-output") failed');
    const attached = new Map(outcome?.attachments.map((a) => [a.name, a]));
    expect([...attached.keys()].filter((name) => name.startsWith('shell'))).toEqual([
      'shell.cast',
      'shell-calls.json',
      'shell-screen.txt',
    ]);
    const read = (name: string): string => readFileSync(attached.get(name)?.path ?? '', 'utf8');
    const [header, ...events] = read('shell.cast').trim().split('\n');
    expect(JSON.parse(header ?? '{}')).toMatchObject({ version: 2 });
    expect(events.join('\n')).toContain('actual-output-42');
    const calls = JSON.parse(read('shell-calls.json')) as { command: string; output: string }[];
    expect(calls.map(({ command, output }) => ({ command, output }))).toEqual([
      { command: 'echo actual-output-$((6*7))', output: 'actual-output-42' },
    ]);
    expect(read('shell-screen.txt')).toMatch(/^actual-output-42$/m);
    // The HTML report keeps copies of the files it links.
    const data = readdirSync(join(app, 'playwright-report', 'data'));
    expect(data.filter((file) => /\.(cast|json|txt)$/.test(file)).length).toBe(3);
    expect(existsSync(join(app, 'playwright-report', 'index.html'))).toBe(true);
    expect(serversOfApp()).toEqual([]);
  });
});
