/**
 * What the schemas cannot know about jumpseat's manifests: that the containers' arguments are
 * flags jumpseat reads, that probes ask the routes jumpseat serves, that Services select pods
 * that exist, that every Secret key read is one the example Secrets name, and that no pod gets
 * Kubernetes' service-link variables (jumpseat reads JUMPSEAT_* variables as settings).
 */
import { parseArgs } from 'node:util';
import { envNameOf, FLAGS, parseArgsOptions } from '../../server/src/config/flags.ts';
import { readHostSettings } from '../../server/src/host/host-command.ts';
import { type ManifestObject, where } from './manifests.ts';

/** Variables jumpseat reads that are not a flag's own: the tokens, the CLI's and the host's. */
const OTHER_VARIABLES = [
  'JUMPSEAT_TOKEN',
  'JUMPSEAT_TOKEN_FILE',
  'JUMPSEAT_URL',
  'JUMPSEAT_JOIN',
  'JUMPSEAT_HOST_NAME',
  'JUMPSEAT_LABELS',
  'JUMPSEAT_MAX_SHELLS',
  'JUMPSEAT_HOST_GRACE_MS',
];
/** The port jumpseat serves on (the image's JUMPSEAT_PORT). */
const JUMPSEAT_PORT = 7400;
/** What `$(NODE_NAME)` and other downward-API values stand for while args are parsed. */
const FIELD_PLACEHOLDER = 'node-a';

type Record_ = Record<string, unknown>;
const record = (value: unknown): Record_ =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record_) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

interface PodTemplate {
  readonly owner: ManifestObject;
  readonly labels: Record_;
  readonly spec: Record_;
  readonly containers: Record_[];
}

function podTemplates(objects: readonly ManifestObject[]): PodTemplate[] {
  return objects
    .filter((o) => ['Deployment', 'DaemonSet', 'StatefulSet'].includes(o.kind))
    .map((owner) => {
      const template = record(record(owner.body.spec).template);
      const spec = record(template.spec);
      return {
        owner,
        labels: record(record(template.metadata).labels),
        spec,
        containers: list(spec.containers).map(record),
      };
    });
}

/** The container's environment as Kubernetes expands `$(VAR)` in args: literal values only. */
function expandable(container: Record_): Map<string, string> {
  const values = new Map<string, string>();
  for (const variable of list(container.env).map(record)) {
    const name = String(variable.name);
    if (typeof variable.value === 'string') values.set(name, variable.value);
    else if (record(variable.valueFrom).fieldRef !== undefined) values.set(name, FIELD_PLACEHOLDER);
  }
  return values;
}

function expand(args: string[], values: Map<string, string>, at: string): string[] {
  return args.map((arg) =>
    arg.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (_whole, name: string) => {
      const value = values.get(name);
      if (value === undefined)
        throw new Error(`${at}: $(${name}) is not a variable of the container`);
      return value;
    }),
  );
}

/** The problems with one container's arguments and variables. */
function containerProblems(pod: PodTemplate, container: Record_, secrets: SecretKeys): string[] {
  const at = `${where(pod.owner)} container ${String(container.name)}`;
  const problems: string[] = [];
  const known = new Set([
    ...Object.keys(FLAGS).map((flag) => envNameOf(flag as keyof typeof FLAGS)),
    ...OTHER_VARIABLES,
  ]);
  for (const variable of list(container.env).map(record)) {
    const name = String(variable.name);
    if (name.startsWith('JUMPSEAT_') && !known.has(name)) {
      problems.push(`${at}: env ${name} is not a variable jumpseat reads`);
    }
    if (name === 'JUMPSEAT_TOKEN' && variable.value !== undefined) {
      problems.push(`${at}: env JUMPSEAT_TOKEN is written in the manifest; take it from a Secret`);
    }
    const ref = record(record(variable.valueFrom).secretKeyRef);
    if (ref.name !== undefined)
      problems.push(...secrets.need(pod, String(ref.name), String(ref.key), at));
  }
  let args: string[];
  try {
    args = expand(list(container.args).map(String), expandable(container), at);
  } catch (error) {
    return [...problems, (error as Error).message];
  }
  const [role, ...rest] = args;
  try {
    if (role === 'serve') {
      parseArgs({ args: rest, options: parseArgsOptions(), strict: true, allowPositionals: false });
    } else if (role === 'host') {
      problems.push(...hostProblems(pod, container, rest, at));
    } else {
      problems.push(`${at}: args must start with "serve" or "host", not ${JSON.stringify(role)}`);
    }
  } catch (error) {
    problems.push(`${at}: jumpseat ${role} would refuse its args: ${(error as Error).message}`);
  }
  return problems;
}

/** A host's flags, read by jumpseat's own reader; its token file must be a mounted Secret's. */
function hostProblems(pod: PodTemplate, container: Record_, args: string[], at: string): string[] {
  const problems: string[] = [];
  const fileAt = args.indexOf('--token-file');
  const tokenFile = fileAt >= 0 ? args[fileAt + 1] : undefined;
  if (tokenFile === undefined) {
    problems.push(`${at}: a host needs --token-file (its token, from a Secret)`);
  } else {
    const secretMounts = list(container.volumeMounts)
      .map(record)
      .filter((mount) => {
        const volume = list(pod.spec.volumes)
          .map(record)
          .find((v) => v.name === mount.name);
        return volume !== undefined && record(volume.secret).secretName !== undefined;
      });
    if (!secretMounts.some((mount) => tokenFile.startsWith(`${String(mount.mountPath)}/`))) {
      problems.push(`${at}: --token-file ${tokenFile} is not in a mounted Secret`);
    }
  }
  const withoutFile = fileAt >= 0 ? [...args.slice(0, fileAt), ...args.slice(fileAt + 2)] : args;
  const settings = readHostSettings(withoutFile, { JUMPSEAT_TOKEN: 'checked-elsewhere' });
  parseArgs({
    args: settings.engineArgs,
    options: parseArgsOptions(),
    strict: true,
    allowPositionals: false,
  });
  return problems;
}

/** The Secrets the example file names, and what the manifests read of them. */
export class SecretKeys {
  private readonly keys = new Map<string, Set<string>>();

  constructor(examples: readonly ManifestObject[]) {
    for (const secret of examples.filter((o) => o.kind === 'Secret')) {
      const data = { ...record(secret.body.data), ...record(secret.body.stringData) };
      this.keys.set(`${secret.namespace}/${secret.name}`, new Set(Object.keys(data)));
    }
  }

  need(pod: PodTemplate, name: string, key: string | undefined, at: string): string[] {
    const keys = this.keys.get(`${pod.owner.namespace}/${name}`);
    if (keys === undefined) {
      return [`${at}: Secret ${pod.owner.namespace}/${name} is not in secrets.example.yaml`];
    }
    if (key !== undefined && !keys.has(key)) {
      return [
        `${at}: Secret ${pod.owner.namespace}/${name} has no key ${key} in secrets.example.yaml`,
      ];
    }
    return [];
  }
}

/** A host's --join must name a Service of the kustomization (NAME.NAMESPACE.svc) and its port. */
function joinProblems(
  pod: PodTemplate,
  container: Record_,
  objects: readonly ManifestObject[],
): string[] {
  const at = `${where(pod.owner)} container ${String(container.name)}`;
  const args = list(container.args).map(String);
  const join = args[args.indexOf('--join') + 1];
  if (!args.includes('--join') || join === undefined) return [`${at}: a host needs --join URL`];
  const url = new URL(join);
  const [name, namespace = pod.owner.namespace] = url.hostname.split('.');
  const service = objects.find(
    (o) => o.kind === 'Service' && o.name === name && o.namespace === namespace,
  );
  if (service === undefined) return [`${at}: --join ${join} names no Service of the kustomization`];
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const ports = list(record(service.body.spec).ports).map((p) => record(p).port);
  return ports.includes(port) ? [] : [`${at}: --join ${join}: Service ${name} has no port ${port}`];
}

function probePath(container: Record_, probe: string): string | undefined {
  const get = record(record(container[probe]).httpGet);
  return typeof get.path === 'string' ? get.path : undefined;
}

/** Everything above, for the kustomization's objects and the example Secrets. */
export function jumpseatProblems(
  objects: readonly ManifestObject[],
  images: readonly string[],
  examples: readonly ManifestObject[],
): string[] {
  const problems: string[] = [];
  const secrets = new SecretKeys(examples);
  const namespaces = new Set(objects.filter((o) => o.kind === 'Namespace').map((o) => o.name));
  for (const object of objects) {
    if (object.kind !== 'Namespace' && !namespaces.has(object.namespace ?? '')) {
      problems.push(
        `${where(object)}: namespace ${object.namespace} is not one of the kustomization's`,
      );
    }
  }
  const pods = podTemplates(objects);
  for (const pod of pods) {
    const at = where(pod.owner);
    if (pod.spec.enableServiceLinks !== false) {
      problems.push(
        `${at}: enableServiceLinks must be false (service links set JUMPSEAT_* variables)`,
      );
    }
    if (pod.spec.automountServiceAccountToken !== false) {
      problems.push(
        `${at}: automountServiceAccountToken must be false (jumpseat never calls the API)`,
      );
    }
    for (const volume of list(pod.spec.volumes).map(record)) {
      const secret = record(volume.secret);
      if (secret.secretName === undefined) continue;
      const items = list(secret.items).map(record);
      if (items.length === 0)
        problems.push(...secrets.need(pod, String(secret.secretName), undefined, at));
      for (const item of items)
        problems.push(...secrets.need(pod, String(secret.secretName), String(item.key), at));
    }
    for (const container of pod.containers) {
      if (!images.includes(String(container.image))) {
        problems.push(`${at}: image ${String(container.image)} is not one the kustomization sets`);
      }
      problems.push(...containerProblems(pod, container, secrets));
      if (list(container.args)[0] === 'host')
        problems.push(...joinProblems(pod, container, objects));
      if (list(container.args)[0] !== 'serve') continue;
      const ports = list(container.ports).map(record);
      if (!ports.some((port) => port.containerPort === JUMPSEAT_PORT)) {
        problems.push(`${at}: the serve container declares no containerPort ${JUMPSEAT_PORT}`);
      }
      if (probePath(container, 'readinessProbe') !== '/readyz') {
        problems.push(`${at}: the readiness probe must GET /readyz`);
      }
      if (probePath(container, 'livenessProbe') !== '/healthz') {
        problems.push(`${at}: the liveness probe must GET /healthz`);
      }
    }
  }
  for (const service of objects.filter((o) => o.kind === 'Service')) {
    const spec = record(service.body.spec);
    const selector = Object.entries(record(spec.selector));
    const selected = pods.filter(
      (pod) =>
        pod.owner.namespace === service.namespace &&
        selector.length > 0 &&
        selector.every(([key, value]) => pod.labels[key] === value),
    );
    if (selected.length === 0) {
      problems.push(`${where(service)}: its selector matches no pod of the kustomization`);
      continue;
    }
    for (const port of list(spec.ports).map(record)) {
      const target = port.targetPort ?? port.port;
      const served = selected.some((pod) =>
        pod.containers.some((c) =>
          list(c.ports)
            .map(record)
            .some((p) => p.name === target || p.containerPort === target),
        ),
      );
      if (!served)
        problems.push(`${where(service)}: targetPort ${String(target)} is no container port`);
    }
  }
  return problems;
}
