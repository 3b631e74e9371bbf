/**
 * Vitest global set-up: the test run's own XDG_DATA_HOME, so that a server a test starts
 * without `--workspace` keeps its workspaces (and, as root, their quota images) in a scratch
 * directory, not in the user's `~/.local/share/jumpseat/workspaces`, where every run of the
 * suite left agents' directories and 10 GiB sparse images behind. Removed after the run, once
 * whatever a killed server left mounted there is detached.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountsUnder } from '../../src/launch/mount-table.ts';

export default function runDataHome(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'jumpseat-test-data-home-'));
  // Test files run in workers started after this, which inherit the environment.
  process.env.XDG_DATA_HOME = dir;
  return () => {
    for (const point of mountsUnder(`${dir}/`).reverse()) {
      spawnSync('umount', ['-l', point], { stdio: 'ignore' });
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
