/**
 * A screen snapshot that shows the prompt holds across runs: the README's `tests/hello.spec.ts`
 * with a `toMatchScreenSnapshot` at its end, run by Playwright from a folder of its own. The
 * first run writes the snapshot; a second run (a new worker, a new server) matches it; so do
 * two workers at once, each with its own server, the test repeated in both. A mask covers
 * what the test prints of its run (the shell's working directory).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from './support/cli-process.ts';

/** One Playwright run: its workers' server starts (from source) and the test itself. */
const RUN_DEADLINE_MS = 240_000;
const PLAYWRIGHT_CLI = join(REPO, 'node_modules', '@playwright', 'test', 'cli.js');
const FIXTURES = join(REPO, 'playwright', 'src', 'index.ts');

let dir: string;

interface Run {
  readonly status: number | null;
  readonly output: string;
}

/** The environment without any JUMPSEAT_* (each worker starts its own server) or CI's list. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('JUMPSEAT_') && !name.startsWith('npm_'),
    ),
  );
}

function playwright(...args: string[]): Promise<Run> {
  const reporter = args.some((arg) => arg.startsWith('--reporter')) ? [] : ['--reporter=list'];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [PLAYWRIGHT_CLI, 'test', ...reporter, ...args],
      {
        cwd: dir,
        env: { ...cleanEnv(), PLAYWRIGHT_JSON_OUTPUT_NAME: 'report.json' },
        timeout: RUN_DEADLINE_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ status, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/**
 * The test docs/playwright.md shows (it was the README's), importing the fixtures from this
 * checkout, ending in a snapshot.
 */
function helloSpec(): string {
  const guide = readFileSync(join(REPO, 'docs', 'playwright.md'), 'utf8');
  const block = /`tests\/hello\.spec\.ts`:\n\n```ts\n([\s\S]*?)```/.exec(guide)?.[1];
  if (block === undefined) throw new Error('docs/playwright.md has no tests/hello.spec.ts block');
  const end = block.lastIndexOf('});');
  return [
    block.slice(0, end).replace("'jumpseat/playwright'", JSON.stringify(FIXTURES)),
    "  await expect(shell).toMatchScreenSnapshot('greeting');",
    // The working directory differs per server: masked, it matches too.
    "  await shell.run('pwd');",
    "  await expect(shell).toMatchScreenSnapshot('where', { mask: [/\\/\\S*\\/greets-then-asks-a-name-\\w+-1/] });",
    '});',
    '',
  ].join('\n');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jumpseat-snapshot-'));
  // ES modules, as the fixtures' own sources are.
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    join(dir, 'playwright.config.ts'),
    [
      `import { systemChromium } from ${JSON.stringify(FIXTURES)};`,
      'export default {',
      "  testDir: 'tests',",
      '  timeout: 180_000,',
      '  expect: { timeout: 30_000 },',
      '  use: { ...systemChromium() },',
      '};',
      '',
    ].join('\n'),
  );
  mkdirSync(join(dir, 'tests'));
  writeFileSync(join(dir, 'tests', 'hello.spec.ts'), helloSpec());
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('toMatchScreenSnapshot with the prompt on screen', {
  timeout: RUN_DEADLINE_MS * 3,
}, () => {
  it('passes on a second run, in two workers, each with a server of its own', async () => {
    const first = await playwright('--update-snapshots=missing', '--workers=1');
    expect(first.status, first.output).toBe(0);
    const snapshot = join(dir, 'tests', 'hello.spec.ts-snapshots', 'greeting-linux.txt');
    expect(readFileSync(snapshot, 'utf8')).toBe(
      [
        '$ echo hello; (exit 3)',
        'hello',
        '$ read -p "Name? " n; echo "hi $n"',
        'Name? Ada',
        'hi Ada',
        '$',
        '',
      ].join('\n'),
    );
    const where = join(dir, 'tests', 'hello.spec.ts-snapshots', 'where-linux.txt');
    expect(readFileSync(where, 'utf8')).toMatch(/^\$ pwd\n\[masked\]\n\$\n$/m);

    const second = await playwright('--workers=1', '--reporter=json');
    expect(second.status, second.output).toBe(0);
    // Each run, type and press is a step of its own, named by what it did.
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      suites: { specs: { tests: { results: { status: string; steps: Step[] }[] }[] }[] }[];
    };
    interface Step {
      title: string;
    }
    const [result] = report.suites[0]?.specs[0]?.tests[0]?.results ?? [];
    expect(result?.status).toBe('passed');
    expect(result?.steps.map((step) => step.title).filter((t) => t.startsWith('shell.'))).toEqual([
      'shell.run("echo hello; (exit 3)")',
      'shell.run("read -p \\"Name? \\" n; echo \\"hi $n\\"")',
      'shell.type("Ada\\n")',
      'shell.run("pwd")',
    ]);

    const parallel = await playwright('--workers=2', '--repeat-each=2', '--fully-parallel');
    expect(parallel.status, parallel.output).toBe(0);
    expect(parallel.output).toContain('using 2 workers');
    expect(parallel.output).toMatch(/^ {2}2 passed/m);
  });
});
