/**
 * Reads the Kubernetes manifests the way `kubectl apply -k` would take them, offline: the
 * kustomization's resources (local files only), parsed as YAML 1.1 as Kubernetes parses them,
 * each object validated against Kubernetes' OpenAPI schemas (the `kubernetes-models` package,
 * Kubernetes 1.36) and checked for fields the schema does not know, which the API server's
 * strict field validation refuses and the schemas alone let through.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

/** One object of a manifest file. */
export interface ManifestObject {
  /** The file, relative to the repository, and the object's place in it (1-based). */
  readonly file: string;
  readonly index: number;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly body: Record<string, unknown>;
}

export interface Kustomization {
  readonly resources: ManifestObject[];
  /** The image names the kustomization rewrites (`images[].name`). */
  readonly images: string[];
}

/** What this check can resolve of a kustomization; anything else is refused, not ignored. */
const KUSTOMIZATION_KEYS = new Set(['apiVersion', 'kind', 'resources', 'images']);

const repoRoot = resolve(import.meta.dirname, '..', '..');

/** `where`: how a problem names the object it is about. */
export function where(object: ManifestObject): string {
  return `${object.file} (object ${object.index}, ${object.kind} ${object.name})`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The objects of one YAML file. YAML 1.1, as Kubernetes reads manifests: `0440` is octal and a
 * bare `off` is the boolean false (where YAML 1.2 reads 440 and the string "off").
 */
export function readManifestFile(path: string): ManifestObject[] {
  const file = relative(repoRoot, path);
  const objects: ManifestObject[] = [];
  const documents = parseAllDocuments(readFileSync(path, 'utf8'), { version: '1.1' });
  if (!Array.isArray(documents)) throw new Error(`${file}: not a YAML stream`);
  documents.forEach((document, i) => {
    const index = i + 1;
    if (document.errors.length > 0) {
      throw new Error(`${file} (object ${index}): ${document.errors[0]?.message}`);
    }
    const body: unknown = document.toJS();
    if (body === null || body === undefined) return;
    if (!isRecord(body)) throw new Error(`${file} (object ${index}): not a mapping`);
    const metadata = isRecord(body.metadata) ? body.metadata : {};
    const apiVersion = body.apiVersion;
    const kind = body.kind;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
      throw new Error(`${file} (object ${index}): apiVersion and kind must be strings`);
    }
    objects.push({
      file,
      index,
      apiVersion,
      kind,
      name: typeof metadata.name === 'string' ? metadata.name : '(no name)',
      namespace: typeof metadata.namespace === 'string' ? metadata.namespace : undefined,
      body,
    });
  });
  return objects;
}

/** The kustomization in `dir` and every object its resources hold. */
export function readKustomization(dir: string): Kustomization {
  const path = join(dir, 'kustomization.yaml');
  const [document] = readManifestFile(path).map((object) => object.body);
  const file = relative(repoRoot, path);
  if (document === undefined || document.kind !== 'Kustomization') {
    throw new Error(`${file}: not a Kustomization`);
  }
  for (const key of Object.keys(document)) {
    if (!KUSTOMIZATION_KEYS.has(key)) {
      throw new Error(`${file}: "${key}" is not resolved by this check; extend deploy/check first`);
    }
  }
  const resources = document.resources;
  if (!Array.isArray(resources) || resources.length === 0) {
    throw new Error(`${file}: resources must list the manifest files`);
  }
  const objects: ManifestObject[] = [];
  for (const resource of resources) {
    if (typeof resource !== 'string' || !/^[\w.-]+\.ya?ml$/.test(resource)) {
      throw new Error(`${file}: resource ${JSON.stringify(resource)} is not a file beside it`);
    }
    objects.push(...readManifestFile(join(dirname(path), resource)));
  }
  const images = Array.isArray(document.images)
    ? document.images.map((image) => (isRecord(image) ? String(image.name) : ''))
    : [];
  return { resources: objects, images };
}

/** `kubernetes-models/apps/v1/Deployment` for apps/v1 Deployment, `…/v1/Service` for v1. */
function modelPath(object: ManifestObject): string {
  if (!/^[a-z0-9.]+\/v[0-9a-z]+$|^v[0-9a-z]+$/.test(object.apiVersion)) {
    throw new Error(`${where(object)}: apiVersion ${JSON.stringify(object.apiVersion)}`);
  }
  if (!/^[A-Z][A-Za-z0-9]*$/.test(object.kind)) {
    throw new Error(`${where(object)}: kind ${JSON.stringify(object.kind)}`);
  }
  return `kubernetes-models/${object.apiVersion}/${object.kind}`;
}

interface ValidationError {
  readonly instancePath?: string;
  readonly message?: string;
}

/** The schema's complaints about one object (empty when it is valid). */
export async function schemaProblems(object: ManifestObject): Promise<string[]> {
  let model: Record<string, unknown>;
  try {
    model = (await import(modelPath(object))) as Record<string, unknown>;
  } catch {
    return [`${where(object)}: ${object.apiVersion} ${object.kind} is not a Kubernetes 1.36 kind`];
  }
  const Model = model[object.kind] as (new (data: unknown) => { validate(): void }) | undefined;
  if (Model === undefined) return [`${where(object)}: no model for ${object.kind}`];
  try {
    new Model(object.body).validate();
    return [];
  } catch (error) {
    const errors = (error as { errors?: ValidationError[] }).errors;
    if (!Array.isArray(errors)) return [`${where(object)}: ${String(error)}`];
    return errors.map((e) => `${where(object)}: ${e.instancePath || '/'} ${e.message}`);
  }
}

/**
 * Fields the schemas do not know (`imagee`, `readinessprobe`): the schemas allow any extra
 * property, so each object is type-checked against the models' TypeScript interfaces instead,
 * whose excess-property check names the field and the type it is not part of.
 */
export function unknownFieldProblems(objects: readonly ManifestObject[]): string[] {
  const virtual = join(repoRoot, 'deploy', 'check', '__manifests__.ts');
  const lines: string[] = [];
  const owners: { line: number; object: ManifestObject }[] = [];
  objects.forEach((object, i) => {
    owners.push({ line: lines.length, object });
    const json = JSON.stringify(object.body, null, 2);
    lines.push(`import type { I${object.kind} as T${i} } from '${modelPath(object)}';`);
    lines.push(...`export const object${i}: T${i} = ${json};`.split('\n'));
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === virtual ? source : readFile(name));
  host.fileExists = (name) => name === virtual || fileExists(name);
  host.getSourceFile = (name, language, ...rest) =>
    name === virtual
      ? ts.createSourceFile(name, source, language)
      : getSourceFile(name, language, ...rest);
  const program = ts.createProgram([virtual], options, host);
  const file = program.getSourceFile(virtual);
  return ts.getPreEmitDiagnostics(program, file).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    if (diagnostic.file?.fileName !== virtual || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const owner = owners.filter((o) => o.line <= line).at(-1);
    const text = lines[line]?.trim() ?? '';
    return owner === undefined
      ? message
      : `${where(owner.object)}: ${text.replace(/,$/, '')}: ${message}`;
  });
}
