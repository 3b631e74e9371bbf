/**
 * `npm run check:deploy`: the deployment files checked offline, as CI runs them on a fresh
 * clone (no cluster, no container engine, no systemd running):
 *   manifests  deploy/kubernetes against Kubernetes 1.36's schemas, unknown fields, jumpseat's rules
 *   units      deploy/systemd with systemd-analyze verify
 *   image      the Dockerfile's steps against a temp prefix, then both roles started
 *              (deploy/check/image-steps.sh; minutes: `--no-image` leaves it out)
 * Prints a line per part and exits non-zero when any part found a problem.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { jumpseatProblems } from './jumpseat-rules.ts';
import {
  readKustomization,
  readManifestFile,
  schemaProblems,
  unknownFieldProblems,
} from './manifests.ts';
import { unitFiles, unitProblems } from './units.ts';

const repoRoot = resolve(import.meta.dirname, '..', '..');
const kubernetes = join(repoRoot, 'deploy', 'kubernetes');

/** Every problem with the Kubernetes manifests in `dir` (its kustomization and example Secrets). */
export async function manifestProblems(
  dir: string,
): Promise<{ objects: number; problems: string[] }> {
  const { resources, images } = readKustomization(dir);
  const examples = readManifestFile(join(dir, 'secrets.example.yaml'));
  const all = [...resources, ...examples];
  const problems: string[] = [];
  for (const object of all) problems.push(...(await schemaProblems(object)));
  problems.push(...unknownFieldProblems(all));
  problems.push(...jumpseatProblems(resources, images, examples));
  return { objects: all.length, problems };
}

async function part(name: string, check: () => Promise<string>): Promise<boolean> {
  const started = Date.now();
  try {
    const summary = await check();
    console.log(`passed  ${name}: ${summary} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return true;
  } catch (error) {
    console.log(`FAILED  ${name}: ${(error as Error).message}`);
    return false;
  }
}

function problemsError(problems: string[]): Error {
  return new Error(`${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
}

async function main(): Promise<void> {
  const withImage = !process.argv.includes('--no-image');
  const results = [
    await part('manifests', async () => {
      const { objects, problems } = await manifestProblems(kubernetes);
      if (problems.length > 0) throw problemsError(problems);
      return `${objects} objects valid against Kubernetes 1.36, no unknown field, jumpseat's rules hold`;
    }),
    await part('units', async () => {
      const files = unitFiles();
      const problems = await unitProblems(files);
      if (problems.length > 0) throw problemsError(problems);
      return `systemd-analyze verify found nothing in ${files.length} units`;
    }),
  ];
  if (withImage) {
    results.push(
      await part('image steps', async () => {
        const status = await new Promise<number | null>((done) => {
          const child = spawn(join(repoRoot, 'deploy', 'check', 'image-steps.sh'), [], {
            stdio: 'inherit',
          });
          child.on('close', done);
          child.on('error', () => done(null));
        });
        if (status !== 0) throw new Error(`deploy/check/image-steps.sh ended with ${status}`);
        return "the Dockerfile's steps installed jumpseat, both roles started";
      }),
    );
  } else {
    console.log('NOT RUN image steps (--no-image)');
  }
  const failed = results.filter((ok) => !ok).length;
  console.log(
    failed === 0
      ? `deploy check: all ${results.length} parts passed`
      : `deploy check: ${failed} of ${results.length} parts FAILED`,
  );
  process.exitCode = failed === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  await main();
}
