/**
 * The systemd units, checked with `systemd-analyze verify`, which needs each ExecStart binary to
 * exist: each unit is verified as a copy (same name, in a temp dir) whose /opt/jumpseat path is
 * this checkout's, so the command it checks is a real jumpseat. systemd-analyze exits 0 on an
 * unknown key or a bad value (it ignores them when loading), so any line it prints about a unit
 * is a problem here.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = resolve(import.meta.dirname, '..', '..');
/** Where the units expect jumpseat (the image's and deploy/README.md's install prefix). */
export const INSTALLED_PREFIX = '/opt/jumpseat';
/** systemd-analyze loads the unit and its dependencies; a loaded machine takes seconds. */
const VERIFY_TIMEOUT_MS = 60_000;

export function unitFiles(dir = join(repoRoot, 'deploy', 'systemd')): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.service'))
    .map((name) => join(dir, name));
}

/** What systemd-analyze says about the units (empty when it says nothing). */
export async function unitProblems(paths: readonly string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'jumpseat-units-'));
  try {
    const copies = paths.map((path) => {
      const text = readFileSync(path, 'utf8');
      if (!text.includes(`${INSTALLED_PREFIX}/bin/jumpseat `)) {
        throw new Error(
          `${basename(path)}: ExecStart does not run ${INSTALLED_PREFIX}/bin/jumpseat`,
        );
      }
      const copy = join(dir, basename(path));
      writeFileSync(
        copy,
        text.replaceAll(`${INSTALLED_PREFIX}/bin/jumpseat `, `${repoRoot}/bin/jumpseat.js `),
      );
      return copy;
    });
    let output: string;
    try {
      const result = await run('systemd-analyze', ['verify', '--man=no', ...copies], {
        cwd: dir,
        timeout: VERIFY_TIMEOUT_MS,
      });
      output = `${result.stdout}${result.stderr}`;
    } catch (error) {
      const failed = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
      if (failed.code === 'ENOENT') {
        throw new Error('systemd-analyze is not installed (Debian: apt-get install systemd)');
      }
      output = `${failed.stdout ?? ''}${failed.stderr ?? ''}` || failed.message;
    }
    return output
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.replaceAll(`${dir}/`, 'deploy/systemd/'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
