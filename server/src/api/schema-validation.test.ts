import { type TSchema, Type } from 'typebox';
import { expect, it } from 'vitest';
import { validatorCompiler } from './schema-validation.ts';

function validate(schema: TSchema, httpPart: string, value: unknown): unknown {
  const check = validatorCompiler({ schema, httpPart, url: '/', method: 'GET' });
  return (check as (value: unknown) => unknown)(value);
}

const Query = Type.Object({ limit: Type.Optional(Type.Integer()), kind: Type.String() });

it('passes a valid value through as it is', () => {
  const value = { limit: 5, kind: 'a' };
  expect(validate(Query, 'querystring', value)).toEqual({ value });
});

it('converts a query string that fails as it is, then checks it again', () => {
  expect(validate(Query, 'querystring', { limit: '5', kind: 'a' })).toEqual({
    value: { limit: 5, kind: 'a' },
  });
  expect(validate(Query, 'querystring', { limit: 'many', kind: 'a' })).toHaveProperty('error');
});

it('never converts a body', () => {
  const result = validate(Query, 'body', { limit: '5', kind: 'a' }) as { error: unknown[] };
  expect(result.error.length).toBeGreaterThan(0);
});
