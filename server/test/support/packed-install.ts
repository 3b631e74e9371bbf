/**
 * The package as a user gets it: `npm pack` of this checkout, then `npm i ./jumpseat-*.tgz`
 * into an empty app folder (with the `allowScripts` the README documents). Used by the package
 * test and by the CLI benchmark, which times the installed bin. Slow by nature: npm builds the
 * native addons of the install.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
/** Packing (a stale web build included) and installing (node-pty, better-sqlite3 compile). */
export const INSTALL_DEADLINE_MS = 540_000;

export interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface PackedInstall {
  /** The temp folder holding the tarball and the app; the caller removes it. */
  readonly work: string;
  /** The app folder: its node_modules holds the installed package. */
  readonly app: string;
  readonly tarball: string;
}

/**
 * Our environment without npm's per-run settings (a nested npm would inherit them) and without
 * any JUMPSEAT_* (no server named). `npm_config_nodedir` stays: it names the headers of the
 * Node that runs us (CI runs on Node 22 from npm's binaries), which a nested install builds
 * native addons against.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        name === 'npm_config_nodedir' || !(name.startsWith('npm_') || name.startsWith('JUMPSEAT_')),
    ),
  );
  return { ...env, ...extra };
}

/** Runs `file` to its end (or `timeout` ms), with its status and both outputs. */
export function run(
  file: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = cleanEnv(),
  timeout = INSTALL_DEADLINE_MS,
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

export async function mustRun(file: string, args: readonly string[], cwd: string): Promise<Run> {
  const result = await run(file, args, cwd);
  if (result.status !== 0) {
    throw new Error(`${file} ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
  }
  return result;
}

/** Packs this checkout and installs the tarball into a fresh app folder. */
export async function installPacked(): Promise<PackedInstall> {
  const work = mkdtempSync(join(tmpdir(), 'jumpseat-package-'));
  const packed = await mustRun('npm', ['pack', '--silent', '--pack-destination', work], REPO);
  const tarball = join(work, packed.stdout.trim().split('\n').pop() ?? '');
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'jumpseat-user',
      private: true,
      type: 'module',
      allowScripts: { 'node-pty': true, 'better-sqlite3': true },
    }),
  );
  await mustRun('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], app);
  return { work, app, tarball };
}
