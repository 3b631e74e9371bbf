/**
 * `GET /api/sessions/:id/calls/:callId/output`: the whole output a clipped call saved (the
 * file its result's `[full output saved to …]` line names), for people, under the same access
 * rules as the calls. Only a file of that shell's agent, named as the engine names them, is
 * ever served; `?download=1` makes it an attachment; a single `Range: bytes=` is honoured so
 * a page can show the start of a 256 MiB file.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import type { History } from '../store/history.ts';
import { savedOutputIn } from '../tool/contract-text.ts';
import { savedOutputPath } from '../tool/spill-files.ts';
import { openUntrusted } from '../untrusted-file.ts';
import { ERROR_RESPONSES } from './error-replies.ts';
import { MAX_SESSION_ID_CHARS, noSuchSession, refuseUnlessSupervisor } from './supervisor-api.ts';

export interface FullOutputApiOptions {
  readonly history: History;
  /** The saved outputs' folder (`<data-dir>/outputs`). */
  readonly dir: string;
}

const CallParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: MAX_SESSION_ID_CHARS }),
  callId: Type.String({ minLength: 1, maxLength: MAX_SESSION_ID_CHARS }),
});

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/;
const HTTP_PARTIAL = 206;
const HTTP_RANGE_NOT_SATISFIABLE = 416;

const fullOutputApiPlugin: FastifyPluginAsyncTypebox<FullOutputApiOptions> = async (
  app,
  { history, dir },
) => {
  app.get(
    '/api/sessions/:id/calls/:callId/output',
    {
      schema: {
        params: CallParams,
        querystring: Type.Object({ download: Type.Optional(Type.Boolean()) }),
        produces: ['text/plain'],
        response: {
          200: Type.String({ description: 'the whole output, UTF-8' }),
          ...ERROR_RESPONSES,
        },
      },
      config: { refuse: refuseUnlessSupervisor, sessionScoped: true },
    },
    async (request, reply) => {
      const { id, callId } = request.params;
      const calls = history.calls(id);
      if (calls === undefined) throw noSuchSession(id);
      const call = calls.find((candidate) => candidate.id === callId);
      if (call === undefined) {
        throw new JumpseatError(
          JUMPSEAT_ERR_NOT_FOUND,
          `session ${JSON.stringify(id)} has no call ${JSON.stringify(callId)}`,
        );
      }
      const named = savedOutputIn(call.output);
      const agent = history.session(id)?.agent ?? null;
      const path =
        named === null || agent === null ? null : savedOutputPath(dir, agent, basename(named));
      if (path === null) {
        throw new JumpseatError(
          JUMPSEAT_ERR_NOT_FOUND,
          'this call was not clipped: its result holds its whole output',
        );
      }
      // An unsandboxed shell can write this folder: only a plain file of ours is served,
      // never through a link, and a FIFO planted there cannot make the open wait.
      const opened = await openUntrusted(path).catch(() => null);
      if (opened === null) {
        throw new JumpseatError(
          JUMPSEAT_ERR_NOT_FOUND,
          'the saved output is gone: the newest 20 of each agent are kept',
        );
      }
      const { handle: file, size } = opened;
      const name = `${agent}-${basename(path)}`;
      reply
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('accept-ranges', 'bytes')
        .header(
          'content-disposition',
          `${request.query.download === true ? 'attachment' : 'inline'}; filename="${name}"`,
        );
      const range = byteRange(request.headers.range, size);
      if (range === 'unsatisfiable') {
        await file.close();
        return reply
          .status(HTTP_RANGE_NOT_SATISFIABLE)
          .header('content-range', `bytes */${size}`)
          .send('');
      }
      const { start, end } = range ?? { start: 0, end: size - 1 };
      if (range !== null) {
        reply.status(HTTP_PARTIAL).header('content-range', `bytes ${start}-${end}/${size}`);
      }
      reply.header('content-length', Math.max(0, end - start + 1));
      if (size === 0) {
        await file.close();
        return reply.send('');
      }
      // Streamed from the file: Fastify pipes a stream as is (the typed reply knows strings).
      const untyped: FastifyReply = reply;
      return untyped.send(createReadStream('', { fd: file, start, end }));
    },
  );
};

/** One `bytes=` range within `size`; null for none (or one we do not read: several ranges). */
function byteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  const match = header === undefined ? null : SINGLE_RANGE.exec(header.trim());
  if (match === null) return null;
  const [, from = '', to = ''] = match;
  if (from === '' && to === '') return null;
  if (from === '') {
    const suffix = Math.min(Number(to), size);
    return suffix === 0 ? 'unsatisfiable' : { start: size - suffix, end: size - 1 };
  }
  const start = Number(from);
  if (start >= size) return 'unsatisfiable';
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  return end < start ? 'unsatisfiable' : { start, end };
}

export const fullOutputApi = fp(fullOutputApiPlugin, {
  name: 'jumpseat-full-output-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors'],
});
