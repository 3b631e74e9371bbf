/**
 * The server log, off unless asked for. Requests are logged by method and path only: the
 * query string (a login URL carries a token), headers and cookies never reach it. The JSON
 * lines go to stderr, so stdout carries the banner alone and a log shipper reads one stream.
 */
import type { FastifyServerOptions } from 'fastify';
import type { LogLevel } from '../config/config.ts';
import { pathOf } from './error-replies.ts';

/** Where log lines go; a test passes its own to read them. */
export interface LogDestination {
  write(line: string): void;
}

export interface LogSettings {
  readonly level: LogLevel;
  readonly destination?: LogDestination;
}

/** Belt and braces: the serializers below already leave these out. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.query',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
];

export function loggerOptions(settings: LogSettings): FastifyServerOptions['logger'] {
  if (settings.level === 'off') return false;
  return {
    level: settings.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (request: { method?: string; url?: string; ip?: string }) => ({
        method: request.method,
        url: pathOf(request.url ?? ''),
        remoteAddress: request.ip,
      }),
      res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
    },
    stream: settings.destination ?? process.stderr,
  };
}
