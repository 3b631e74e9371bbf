/**
 * The package as a user gets it (support/packed-install.ts: `npm pack`, then `npm i
 * ./jumpseat-*.tgz` in an empty folder), then `npx jumpseat serve`, `npx jumpseat exec` and
 * `import { JumpseatClient } from 'jumpseat/client'` (type-checked, then run) from there.
 * Slow by nature (npm builds the native addons of the install), so it is one file with one
 * install.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanEnv,
  INSTALL_DEADLINE_MS,
  installPacked,
  mustRun,
  run,
} from './support/packed-install.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const START_DEADLINE_MS = 30_000;

let work: string;
let app: string;
let tarball: string;
let serving: ChildProcess | undefined;
let origin: string;

function startServing(): Promise<string> {
  const child = spawn('npx', ['jumpseat', 'serve', '--port', '0', '--data-dir', 'data'], {
    cwd: app,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: npx runs the server as a child and does not pass SIGTERM on, so
    // the whole group is signalled at the end (otherwise every run left a server behind).
    detached: true,
  });
  serving = child;
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`jumpseat serve did not start:\n${output}`)),
      START_DEADLINE_MS,
    );
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /jumpseat listening on (http:\/\/\S+?)\/?\n/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`jumpseat serve exited ${code}:\n${output}`)));
  });
}

beforeAll(async () => {
  ({ work, app, tarball } = await installPacked());
  origin = await startServing();
}, INSTALL_DEADLINE_MS + START_DEADLINE_MS);

afterAll(async () => {
  if (serving?.exitCode === null) {
    const exited = new Promise((resolve) => serving?.once('exit', resolve));
    if (serving.pid !== undefined) process.kill(-serving.pid, 'SIGTERM');
    await exited;
  }
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/**
 * Each test's limit: two type checks of a program that imports @types/node took over 120 s
 * together in a CI run on a loaded machine (load 8 on 2 cores).
 */
const TEST_DEADLINE_MS = 300_000;

describe('the packed tarball', { timeout: TEST_DEADLINE_MS }, () => {
  it('ships the compiled server, CLI, client and Playwright fixtures with types and web app, and no tests or sources', async () => {
    const listed = (await mustRun('tar', ['tzf', tarball], work)).stdout.trim().split('\n');
    for (const needed of [
      'package/bin/jumpseat.js',
      'package/dist/server/src/main.js',
      'package/dist/server/src/cli/bin.js',
      'package/dist/server/src/store/recording-worker.js',
      'package/dist/client/src/index.js',
      'package/dist/client/src/index.d.ts',
      'package/dist/playwright/src/index.js',
      'package/dist/playwright/src/index.d.ts',
      'package/dist/web/index.html',
      'package/README.md',
    ]) {
      expect(listed).toContain(needed);
    }
    const unwanted = listed.filter((path) =>
      /\.test\.|\.ts$(?<!\.d\.ts)|^package\/(e2e|server|client|playwright|examples|shared|web|scripts)\/|\.png$/.test(
        path,
      ),
    );
    expect(unwanted).toEqual([]);
  });

  it('installs without a TypeScript runtime', () => {
    expect(existsSync(join(app, 'node_modules', 'jumpseat', 'dist', 'server', 'src'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'typescript'))).toBe(false);
  });

  it('npx jumpseat exec runs a call on npx jumpseat serve', async () => {
    const result = await run(
      'npx',
      ['jumpseat', 'exec', '--url', origin, '--agent', 'pkg-cli', '--', 'echo hi; (exit 3)'],
      app,
      cleanEnv({ JUMPSEAT_DATA_DIR: join(app, 'data') }),
    );
    expect([result.status, result.stdout]).toEqual([3, 'hi\n[exit code: 3]\n']);
  });

  it("import { JumpseatClient } from 'jumpseat/client' type-checks and runs", async () => {
    const program = [
      "import { JumpseatClient, type CallOptions } from 'jumpseat/client';",
      'const options: CallOptions = { signal: AbortSignal.timeout(60_000) };',
      'const client = new JumpseatClient({ url: process.argv[2] ?? "", token: process.argv[3] ?? "" });',
      "const output: string = await client.bash('pkg-client', 'echo typed', options);",
      'console.log(output);',
    ].join('\n');
    writeFileSync(join(app, 'use-client.ts'), program);
    writeFileSync(
      join(app, 'misuse-client.ts'),
      "import { JumpseatClient } from 'jumpseat/client';\nconst n: number = await new JumpseatClient({ url: '', token: '' }).bash('a', 'b');\nconsole.log(n);\n",
    );
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = [
      '--noEmit',
      '--strict',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--typeRoots',
      join(REPO, 'node_modules', '@types'),
      '--types',
      'node',
    ];
    const good = await run(process.execPath, [tsc, ...flags, 'use-client.ts'], app);
    expect([good.status, good.stdout]).toEqual([0, '']);
    // The types are real: a wrong use is an error, not an `any`.
    const bad = await run(process.execPath, [tsc, ...flags, 'misuse-client.ts'], app);
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toContain("Type 'string' is not assignable to type 'number'");

    writeFileSync(
      join(app, 'use-client.mjs'),
      program
        .replace(', type CallOptions', '')
        .replace(': CallOptions', '')
        .replace(': string', ''),
    );
    const token = readFileSync(join(app, 'data', 'admin-token'), 'utf8').trim();
    const ran = await run(process.execPath, ['use-client.mjs', origin, token], app);
    expect([ran.status, ran.stdout, ran.stderr]).toEqual([0, 'typed\n', '']);
  });
});
