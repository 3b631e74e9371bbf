/**
 * The deployment check must fail on broken files: a copy of deploy/kubernetes with known
 * mistakes in it, and a unit with a misspelt key, each named in the problems it reports.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { manifestProblems } from './run.ts';
import { unitFiles, unitProblems } from './units.ts';

/** A TypeScript program over the models' types, on a loaded CI machine. */
const MANIFEST_CHECK_TIMEOUT_MS = 180_000;
const repoRoot = resolve(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'jumpseat-deploy-check-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of deploy/kubernetes with each [file, from, to] replaced once (the text must be there). */
function brokenCopy(name: string, edits: [string, string, string][]): string {
  const dir = join(scratch, name);
  cpSync(join(repoRoot, 'deploy', 'kubernetes'), dir, { recursive: true });
  for (const [file, from, to] of edits) {
    const path = join(dir, file);
    const text = readFileSync(path, 'utf8');
    if (!text.includes(from)) throw new Error(`${file} no longer holds ${JSON.stringify(from)}`);
    writeFileSync(path, text.replace(from, to));
  }
  return dir;
}

describe('manifests', () => {
  it(
    'finds no problem in deploy/kubernetes',
    async () => {
      const { objects, problems } = await manifestProblems(join(repoRoot, 'deploy', 'kubernetes'));
      expect(problems).toEqual([]);
      expect(objects).toBe(8);
    },
    MANIFEST_CHECK_TIMEOUT_MS,
  );

  it(
    'names each mistake of a broken copy',
    async () => {
      const dir = brokenCopy('broken', [
        // A schema type error.
        ['control-plane.yaml', 'replicas: 2', 'replicas: two'],
        // A field no schema has (strict field validation refuses it; the schemas alone do not).
        // In an object of its own: TypeScript names one mistake per object.
        [
          'control-plane.yaml',
          '  ports:\n    - name: http\n      port: 7400',
          '  sessionAffinityy: None\n  ports:\n    - name: http\n      port: 7400',
        ],
        // A bare off is the boolean false in YAML 1.1, as Kubernetes reads it.
        [
          'hosts.yaml',
          '- --workspace-quota\n            - "off"',
          '- --workspace-quota\n            - off',
        ],
        // A flag jumpseat does not have.
        ['control-plane.yaml', '- --log\n', '- --logs\n'],
        // The readiness probe on a route jumpseat does not serve.
        ['control-plane.yaml', 'path: /readyz', 'path: /ready'],
        // Service links back on.
        ['hosts.yaml', 'enableServiceLinks: false', 'enableServiceLinks: true'],
        // A host joining a Service that is not there.
        [
          'hosts.yaml',
          'http://jumpseat-control-plane.jumpseat.svc:7400/',
          'http://jumpseat-control.jumpseat.svc:7400/',
        ],
        // A Secret key nobody makes.
        ['control-plane.yaml', 'key: database-url', 'key: database_url'],
        // A Service that selects nothing.
        [
          'control-plane.yaml',
          'spec:\n  selector:\n    app.kubernetes.io/name: jumpseat',
          'spec:\n  selector:\n    app.kubernetes.io/name: jumpset',
        ],
      ]);
      const { problems } = await manifestProblems(dir);
      const text = problems.join('\n');
      expect(text).toContain(
        'broken/control-plane.yaml (object 1, Deployment jumpseat-control-plane): /spec/replicas must be integer',
      );
      expect(text).toContain(
        `broken/control-plane.yaml (object 2, Service jumpseat-control-plane): "sessionAffinityy": "None": Object literal may only specify known properties, and '"sessionAffinityy"' does not exist in type 'IServiceSpec'.`,
      );
      expect(text).toContain(
        'broken/hosts.yaml (object 1, DaemonSet jumpseat-host): /spec/template/spec/containers/0/args/10 must be string',
      );
      expect(text).toContain("jumpseat serve would refuse its args: Unknown option '--logs'");
      expect(text).toContain('the readiness probe must GET /readyz');
      expect(text).toContain(
        'container jumpseat-host: --join http://jumpseat-control.jumpseat.svc:7400/ names no Service of the kustomization',
      );
      expect(text).toContain('DaemonSet jumpseat-host): enableServiceLinks must be false');
      expect(text).toContain(
        'Secret jumpseat/jumpseat-control-plane has no key database_url in secrets.example.yaml',
      );
      expect(text).toContain(
        'Service jumpseat-control-plane): its selector matches no pod of the kustomization',
      );
    },
    MANIFEST_CHECK_TIMEOUT_MS,
  );

  it('refuses a kustomization feature it cannot resolve instead of ignoring it', async () => {
    const dir = brokenCopy('patches', [
      ['kustomization.yaml', 'images:', 'patches:\n  - path: patch.yaml\nimages:'],
    ]);
    await expect(manifestProblems(dir)).rejects.toThrow(
      '"patches" is not resolved by this check; extend deploy/check first',
    );
  });
});

describe('units', () => {
  it('finds no problem in deploy/systemd', async () => {
    expect(await unitProblems(unitFiles())).toEqual([]);
  });

  it('reports a misspelt key and a bad value, which systemd-analyze itself exits 0 on', async () => {
    const dir = join(scratch, 'units');
    cpSync(join(repoRoot, 'deploy', 'systemd'), dir, { recursive: true });
    const path = join(dir, 'jumpseat-host.service');
    const text = readFileSync(path, 'utf8')
      .replace('NoNewPrivileges=yes', 'NoNewPrivilege=yes')
      .replace('ProtectSystem=full', 'ProtectSystem=fully');
    writeFileSync(path, text);
    const problems = await unitProblems([path]);
    expect(problems).toEqual([
      expect.stringMatching(
        /^deploy\/systemd\/jumpseat-host\.service:\d+: Unknown key '?NoNewPrivilege'? in section \[Service\], ignoring\.$/,
      ),
      expect.stringMatching(
        /^deploy\/systemd\/jumpseat-host\.service:\d+: Failed to parse protect system value, ignoring: fully$/,
      ),
    ]);
  });
});
