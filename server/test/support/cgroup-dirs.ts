/**
 * Finds the cgroup directories a server made for its shells, named for its data dir, in every
 * hierarchy: what a test checks was swept, kept or removed.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runKeyOf } from '../../src/launch/choose-launcher.ts';

/** Directory levels below /sys/fs/cgroup searched for our groups (mount, server's path). */
const CGROUP_SEARCH_DEPTH = 4;

/** Our cgroup directories named for `dataDir` (every hierarchy), found by a bounded walk. */
export function cgroupsOf(dataDir: string): string[] {
  const prefix = `jumpseat-${runKeyOf(dataDir)}-`;
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (depth > CGROUP_SEARCH_DEPTH) return;
    let entries: string[];
    try {
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      return;
    }
    for (const name of entries) {
      if (name.startsWith(prefix)) found.push(join(dir, name));
      else if (!name.startsWith('jumpseat-')) walk(join(dir, name), depth + 1);
    }
  };
  walk('/sys/fs/cgroup', 0);
  return found;
}
