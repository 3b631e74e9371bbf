/**
 * Every refusal leaves the server in one shape, `{"error": {"code", "message"}}` (a small
 * HTML page on browser routes), with the catalogue's status; stacks and internals never do.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ErrorReply } from '../../../shared/src/api.ts';
import { DatabaseUnavailable } from '../database/postgres-database.ts';
import {
  JUMPSEAT_ERR_BAD_REQUEST,
  JUMPSEAT_ERR_BODY_TOO_LARGE,
  JUMPSEAT_ERR_DATABASE_UNAVAILABLE,
  JUMPSEAT_ERR_FORBIDDEN,
  JUMPSEAT_ERR_INTERNAL,
  JUMPSEAT_ERR_NOT_FOUND,
  JUMPSEAT_ERR_STORAGE_UNAVAILABLE,
  JUMPSEAT_ERR_UNAUTHORIZED,
  JumpseatError,
  RetryLaterError,
} from '../errors.ts';
import { storageErrorCode } from '../ops/storage-health.ts';
import { errorPage, PAGE_SECURITY_POLICY } from './html-page.ts';

/** Room for a 1 MiB command even when JSON escaping doubles it (TOOL-CONTRACT.md). */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/** What a client is told; `message` is always safe to show. */
export interface ErrorDescription {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

const CODES_BY_STATUS: Record<number, string> = {
  [JUMPSEAT_ERR_BAD_REQUEST.status]: JUMPSEAT_ERR_BAD_REQUEST.code,
  [JUMPSEAT_ERR_UNAUTHORIZED.status]: JUMPSEAT_ERR_UNAUTHORIZED.code,
  [JUMPSEAT_ERR_FORBIDDEN.status]: JUMPSEAT_ERR_FORBIDDEN.code,
  [JUMPSEAT_ERR_NOT_FOUND.status]: JUMPSEAT_ERR_NOT_FOUND.code,
};

const INTERNAL: ErrorDescription = {
  status: JUMPSEAT_ERR_INTERNAL.status,
  code: JUMPSEAT_ERR_INTERNAL.code,
  message: 'internal error; the server log has the details',
};

/** Fastify's answer to a Content-Type header it cannot parse. */
const UNSUPPORTED_MEDIA_TYPE_STATUS = 415;

/** Longest request path echoed back in a 404 message. */
const MAX_ECHOED_PATH_CHARS = 200;

export function describeError(error: unknown): ErrorDescription {
  if (error instanceof JumpseatError) {
    return { status: error.status, code: error.code, message: error.message };
  }
  // So is a database that does not answer (no driver text: it names the database's address).
  if (error instanceof DatabaseUnavailable) {
    return {
      status: JUMPSEAT_ERR_DATABASE_UNAVAILABLE.status,
      code: JUMPSEAT_ERR_DATABASE_UNAVAILABLE.code,
      message: DATABASE_UNAVAILABLE_MESSAGE,
    };
  }
  // A disk that says no is a state of the host, not a bug: 503, and what to do about it.
  const storage = storageErrorCode(error);
  if (storage !== undefined) {
    return {
      status: JUMPSEAT_ERR_STORAGE_UNAVAILABLE.status,
      code: JUMPSEAT_ERR_STORAGE_UNAVAILABLE.code,
      message: storageUnavailableMessage(storage),
    };
  }
  const status = statusOf(error);
  if (status === undefined || status < 400 || status >= 500 || !(error instanceof Error)) {
    return INTERNAL;
  }
  if (status === JUMPSEAT_ERR_BODY_TOO_LARGE.status) {
    return {
      status,
      code: JUMPSEAT_ERR_BODY_TOO_LARGE.code,
      message: `request body is larger than ${BODY_LIMIT_BYTES / (1024 * 1024)} MiB`,
    };
  }
  if (status === UNSUPPORTED_MEDIA_TYPE_STATUS) {
    // Every declared type is read as JSON; only a header that does not parse ends up here.
    return {
      status: JUMPSEAT_ERR_BAD_REQUEST.status,
      code: JUMPSEAT_ERR_BAD_REQUEST.code,
      message: 'the Content-Type header is malformed; send the body as JSON',
    };
  }
  // Fastify's own 4xx messages (validation, content length, bad URL) are meant for clients.
  return {
    status,
    code: CODES_BY_STATUS[status] ?? JUMPSEAT_ERR_BAD_REQUEST.code,
    message: error.message,
  };
}

/** What a client is told when a route needs PostgreSQL and it does not answer. */
export const DATABASE_UNAVAILABLE_MESSAGE =
  'the database does not answer: past shells, their calls and recordings, and the audit can be read once it is back (live shells keep working; GET /healthz says when)';

/** What a client is told when the data dir refused a write (no path: it is the server's). */
export function storageUnavailableMessage(code: string): string {
  return `the server's data dir cannot be written (${code}); try again once space or write access is back (GET /healthz says when)`;
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('statusCode' in error)) return undefined;
  return typeof error.statusCode === 'number' ? error.statusCode : undefined;
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
): FastifyReply {
  const { status, code, message } = describeError(error);
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  reply.status(status);
  if (status === JUMPSEAT_ERR_UNAUTHORIZED.status) {
    reply.header('www-authenticate', 'Bearer realm="jumpseat"');
  }
  if (error instanceof RetryLaterError)
    reply.header('retry-after', String(error.retryAfterSeconds));
  if (request.routeOptions.config.html === true) {
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', PAGE_SECURITY_POLICY)
      .send(errorPage(status, message));
  }
  return reply.send({ error: { code, message } });
}

/** The path part of a URL, never its query (a login URL carries a token there). */
export function pathOf(url: string): string {
  const path = url.split('?', 1)[0] ?? '';
  return path.length > MAX_ECHOED_PATH_CHARS ? `${path.slice(0, MAX_ECHOED_PATH_CHARS)}…` : path;
}

export const errorReplies = fp(
  async (app) => {
    app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
    app.setNotFoundHandler((request) => {
      throw new JumpseatError(
        JUMPSEAT_ERR_NOT_FOUND,
        `no route ${request.method} ${pathOf(request.url)}`,
      );
    });
  },
  { name: 'jumpseat-errors', fastify: '5.x' },
);

/** Response schemas for refusals, declared on every JSON route. */
export const ERROR_RESPONSES = { '4xx': ErrorReply, '5xx': ErrorReply } as const;
