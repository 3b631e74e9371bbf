import { describe, expect, it } from 'vitest';
import { JUMPSEAT_ERR_HUMAN_CONTROL, JumpseatError } from '../errors.ts';
import { describeError, pathOf } from './error-replies.ts';

describe('describeError', () => {
  it('passes a JumpseatError through with its status and code', () => {
    const error = new JumpseatError(JUMPSEAT_ERR_HUMAN_CONTROL, 'a human holds this shell');
    expect(describeError(error)).toEqual({
      status: 409,
      code: 'HUMAN_CONTROL',
      message: 'a human holds this shell',
    });
  });

  it('hides anything else behind 500 INTERNAL, without its message or stack', () => {
    const error = new Error('ENOENT: /secret/path');
    const described = describeError(error);
    expect(described).toEqual({
      status: 500,
      code: 'INTERNAL',
      message: 'internal error; the server log has the details',
    });
    expect(JSON.stringify(described)).not.toContain('secret');
  });

  it('treats a thrown non-error as internal', () => {
    expect(describeError('boom').code).toBe('INTERNAL');
  });

  it('keeps the status and message of a client error from Fastify', () => {
    const error = Object.assign(new Error('Request body size did not match Content-Length'), {
      statusCode: 400,
    });
    expect(describeError(error)).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'Request body size did not match Content-Length',
    });
  });

  it('turns a too large body into 413 BODY_TOO_LARGE', () => {
    const error = Object.assign(new Error('Request body is too large'), { statusCode: 413 });
    expect(describeError(error)).toEqual({
      status: 413,
      code: 'BODY_TOO_LARGE',
      message: 'request body is larger than 2 MiB',
    });
  });

  it('does not pass on server errors that carry a status', () => {
    const error = Object.assign(new Error('upstream detail'), { statusCode: 502 });
    expect(describeError(error).code).toBe('INTERNAL');
  });
});

describe('pathOf', () => {
  it('drops the query string, where a login token travels', () => {
    expect(pathOf('/login?token=js_secret')).toBe('/login');
  });

  it('shortens very long paths', () => {
    expect(pathOf(`/${'a'.repeat(500)}`)).toHaveLength(201);
  });
});
