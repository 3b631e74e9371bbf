/**
 * Where the jumpseat package is on disk, whether this module runs as TypeScript from a
 * checkout (`server/src/`) or compiled from an installed package (`dist/server/src/`): the
 * nearest folder above that holds jumpseat's package.json. Its name and version come from
 * there too, read once at start.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly description: string;
}

function findRoot(): { root: string; json: PackageJson } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const json = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
      if (json.name === 'jumpseat') return { root: dir, json };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('jumpseat: cannot find its own package.json');
    dir = parent;
  }
}

const found = findRoot();

/** The package's folder (the checkout, or node_modules/jumpseat). */
export const PACKAGE_ROOT = found.root;
export const PACKAGE_VERSION = found.json.version;
export const PACKAGE_DESCRIPTION = found.json.description;
