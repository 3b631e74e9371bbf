/**
 * The package can be published as it stands: `npm publish --dry-run` from the checkout
 * accepts the manifest without correcting it. npm "auto-corrects" at publish time what `npm
 * pack` keeps as written, and one correction is fatal: a `bin` path written `./bin/…` is
 * dropped, so the published package would install without its `jumpseat` command. Packing
 * and installing the tarball is package.test.ts; this needs no build (`--ignore-scripts`).
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO } from './support/cli-process.ts';

/** npm reads the registry's record of the name; on a slow network that takes a while. */
const PUBLISH_DEADLINE_MS = 120_000;

interface Published {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function dryRunPublish(): Promise<Published> {
  // Without npm's per-run settings: a nested npm would inherit the outer one's.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')),
  );
  return new Promise((resolve) => {
    execFile(
      'npm',
      // The name `jumpseat` on the registry carries a higher version of an unrelated package,
      // so the dry run needs a tag of its own; without one npm refuses before checking more.
      ['publish', '--dry-run', '--ignore-scripts', '--tag', 'dry-run'],
      { cwd: REPO, env, timeout: PUBLISH_DEADLINE_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

describe('npm publish', { timeout: PUBLISH_DEADLINE_MS + 10_000 }, () => {
  it('accepts the manifest as written: no private flag, nothing auto-corrected', async () => {
    const published = await dryRunPublish();
    const corrections = published.stderr
      .split('\n')
      .filter((line) => /auto-corrected|corrected:|was invalid|was normalized|private/.test(line));
    expect([published.status, corrections]).toEqual([0, []]);
    expect(published.stdout).toContain('+ jumpseat@');
  });
});
