import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { TokenRequest } from '../../../shared/src/api.ts';
import { describeSchemaErrors } from './schema-errors.ts';

const tokenRequest = Compile(TokenRequest);

function describeBody(value: unknown): string {
  return describeSchemaErrors(tokenRequest.Errors(value), 'body');
}

describe('describeSchemaErrors', () => {
  it.each([
    ['not an object', 'x', 'request body must be a JSON object'],
    ['a missing field', {}, 'request body is missing "role"'],
    ['an unknown field', { role: 'viewer', x: 1 }, 'request body has unexpected field "x"'],
    [
      'two unknown fields',
      { role: 'viewer', x: 1, y: 2 },
      'request body has unexpected fields "x", "y"',
    ],
    [
      'a value outside a union',
      { role: 'boss' },
      'role must be one of "admin", "operator", "viewer", "agent", "host"',
    ],
    [
      'a wrong type in a union',
      { role: false },
      'role must be one of "admin", "operator", "viewer", "agent"',
    ],
    ['a wrong type', { role: 'viewer', name: 5 }, 'name must be a string'],
    ['a too short string', { role: 'viewer', name: '' }, 'name must not be empty'],
  ])('describes %s', (_what, value, message) => {
    expect(describeBody(value)).toBe(message);
  });

  it('names the part of the request', () => {
    expect(describeSchemaErrors(tokenRequest.Errors(1), 'querystring')).toBe(
      'query string must be a JSON object',
    );
  });

  it('ignores entries that are not schema errors', () => {
    expect(describeSchemaErrors([42, null], 'body')).toBe('request body is not valid');
  });
});
