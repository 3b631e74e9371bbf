/**
 * Reads every request body as JSON whatever its Content-Type says (`curl -d` sends a form
 * type), with messages that say what is wrong with it rather than Fastify's generic ones.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { JUMPSEAT_ERR_BAD_REQUEST, JumpseatError } from '../errors.ts';

type Done = (error: Error | null, body?: unknown) => void;

export const jsonBody = fp(
  async (app) => {
    // Fastify's parser refuses `__proto__` and `constructor.prototype` keys; keep that guard.
    const guardedParse = app.getDefaultJsonParser('error', 'error');
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      '*',
      { parseAs: 'string' },
      (request: FastifyRequest, body: string | Buffer, done: Done) => {
        const text = typeof body === 'string' ? body : body.toString('utf8');
        if (text.trim() === '') {
          done(badBody('request body is empty; send a JSON object'));
          return;
        }
        guardedParse(request, text, (error: Error | null, parsed?: unknown) => {
          done(error === null ? null : badBody(whyNotJson(text)), parsed);
        });
      },
    );
  },
  { name: 'jumpseat-json-body', fastify: '5.x' },
);

/** Only called after a failed parse, so the second parse here costs nothing normally. */
function whyNotJson(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : 'parse error';
    return `request body is not valid JSON: ${reason}`;
  }
  return 'request body must not contain "__proto__" or "constructor.prototype" keys';
}

function badBody(message: string): JumpseatError {
  return new JumpseatError(JUMPSEAT_ERR_BAD_REQUEST, message);
}
