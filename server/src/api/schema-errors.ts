/**
 * Turns TypeBox validation errors into the one message a client needs to fix its request
 * (`"command" must be a string`), instead of schema paths and keyword names.
 */
import { AGENT_ID_PATTERN } from '../../../shared/src/api.ts';

interface SchemaError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
  readonly message: string;
}

/** What each part of the request is called in messages. */
const PART_NAMES: Record<string, string> = {
  body: 'request body',
  params: 'URL',
  querystring: 'query string',
  headers: 'request headers',
};

export const AGENT_ID_RULE =
  'an agent id is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit';

/** The first problem found, as one sentence; `part` is Fastify's name for where it was. */
export function describeSchemaErrors(errors: Iterable<unknown>, part: string): string {
  const list = [...errors].filter(isSchemaError);
  const partName = PART_NAMES[part] ?? part;
  // Reported in this order: the root's type, then unknown and missing fields, then values.
  const rootType = list.find((error) => error.keyword === 'type' && error.instancePath === '');
  if (rootType !== undefined)
    return `${partName} must be a JSON ${typeName(rootType.params.type, false)}`;
  const extra = list.find((error) => error.keyword === 'additionalProperties');
  if (extra !== undefined) {
    const names = stringList(extra.params.additionalProperties);
    const where = at(extra.instancePath, partName);
    return `${where} has unexpected field${names.length === 1 ? '' : 's'} ${quoteAll(names)}`;
  }
  const missing = list.find((error) => error.keyword === 'required');
  if (missing !== undefined) {
    const names = stringList(missing.params.requiredProperties);
    return `${at(missing.instancePath, partName)} is missing ${quoteAll(names)}`;
  }
  // A union of literals reports a type and a const failure per member; the consts say more.
  const first =
    list.find((error) => error.keyword === 'const') ??
    list.find((error) => error.keyword !== 'boolean') ??
    list[0];
  if (first === undefined) return `${partName} is not valid`;
  return describeValueError(first, list, partName);
}

function describeValueError(error: SchemaError, all: SchemaError[], partName: string): string {
  const subject = at(error.instancePath, partName);
  switch (error.keyword) {
    case 'type':
      return `${subject} must be ${typeName(error.params.type)}`;
    case 'enum':
      return `${subject} must be one of ${quoteAll(stringList(error.params.allowedValues))}`;
    case 'const': {
      // A union of literals fails once per literal; list them all.
      const allowed = all
        .filter((other) => other.keyword === 'const' && other.instancePath === error.instancePath)
        .map((other) => String(other.params.allowedValue));
      return `${subject} must be one of ${quoteAll(allowed)}`;
    }
    case 'pattern':
      if (error.params.pattern === AGENT_ID_PATTERN)
        return `${subject} is not valid: ${AGENT_ID_RULE}`;
      return `${subject} has an invalid format`;
    case 'minLength':
      return error.params.limit === 1
        ? `${subject} must not be empty`
        : `${subject} must have at least ${String(error.params.limit)} characters`;
    case 'maxLength':
      return `${subject} must have at most ${String(error.params.limit)} characters`;
    default:
      return `${subject} ${error.message}`;
  }
}

/** `/command` → `command`, `/a/b` → `a.b`; the root is the part itself. */
function at(instancePath: string, partName: string): string {
  if (instancePath === '') return partName;
  return instancePath
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}

/** `string` → `a string`, `object` → `an object`; without the article after "JSON". */
function typeName(type: unknown, article = true): string {
  const name = typeof type === 'string' ? type : 'value of another type';
  if (!article) return name;
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function quoteAll(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(', ');
}

function isSchemaError(value: unknown): value is SchemaError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.keyword === 'string' &&
    typeof candidate.instancePath === 'string' &&
    typeof candidate.params === 'object' &&
    candidate.params !== null &&
    typeof candidate.message === 'string'
  );
}
