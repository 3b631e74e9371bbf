/**
 * How Fastify validates a request part against its route's TypeBox schema: the compiled check
 * first, and only a value that fails it is converted and checked again.
 * `@fastify/type-provider-typebox`'s compiler converts first (`Value.Convert` walks the value
 * and the schema, and clones for every union) on every request, for URL parameters, query
 * strings and headers that nearly always pass as they are; on a tool call that was a large part
 * of the request's own work. A value that passes is what conversion would have returned: each
 * conversion step leaves a value of its type as it is. Bodies are never converted (JSON has
 * types), as in the provider.
 */
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const validator = Compile(schema);
  const errors = (value: unknown): { error: FastifySchemaValidationError[] } => ({
    error: validator.Errors(value),
  });
  return (value: unknown) => {
    if (validator.Check(value)) return { value };
    if (httpPart === 'body') return errors(value);
    // Conversion changes the value in place (and may return another one): checked again.
    const converted = Value.Convert(schema, value);
    return validator.Check(converted) ? { value: converted } : errors(converted);
  };
};
