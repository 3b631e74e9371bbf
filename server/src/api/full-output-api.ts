/**
 * `GET /api/sessions/:id/calls/:callId/output`: the whole output a clipped call saved (the
 * file its result's `[full output saved to …]` line names), for people, under the same access
 * rules as the calls. Only a file of that shell's agent, named as the engine names them, is
 * ever served; `?download=1` makes it an attachment; a single `Range: bytes=` is honoured so
 * a page can show the start of a 256 MiB file. A shell on a joined host saved it there: it is
 * read through the host's link (remote-files.ts), and a host out of reach is 503
 * `HOST_UNREACHABLE`. Its calls are this server's history's like any (recorded from the link),
 * so the same rules pick the file.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import type { HostDirectory } from '../control/joined-hosts.ts';
import { JUMPSEAT_ERR_HOST_UNREACHABLE, type RemoteFiles } from '../control/remote-files.ts';
import { JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import type { History } from '../store/history.ts';
import { savedOutputIn } from '../tool/contract-text.ts';
import { isSavedOutputName, savedOutputPath } from '../tool/spill-files.ts';
import { openUntrusted } from '../untrusted-file.ts';
import { ERROR_RESPONSES } from './error-replies.ts';
import { MAX_SESSION_ID_CHARS, noSuchSession, refuseUnlessSupervisor } from './supervisor-api.ts';

export interface FullOutputApiOptions {
  readonly history: History;
  /** The saved outputs' folder (`<data-dir>/outputs`). */
  readonly dir: string;
  /** The joined hosts and their saved outputs (`--local-shells off`); null: none join. */
  readonly remote: { readonly directory: HostDirectory; readonly files: RemoteFiles } | null;
}

const CallParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: MAX_SESSION_ID_CHARS }),
  callId: Type.String({ minLength: 1, maxLength: MAX_SESSION_ID_CHARS }),
});

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/;
const HTTP_PARTIAL = 206;
const HTTP_RANGE_NOT_SATISFIABLE = 416;

/** Where a request's saved output lives: this server's folder, or a joined host's. */
type SavedOutput =
  | { readonly agent: string; readonly path: string }
  | { readonly agent: string; readonly name: string; readonly host: string };

/** A saved output opened for reading: its size, then one span of it streamed. */
interface OpenedOutput {
  readonly size: number;
  /** Bytes `start` to `end`, inclusive. */
  stream(start: number, end: number): Promise<Readable>;
  close(): Promise<void> | void;
}

const gone = (): JumpseatError =>
  new JumpseatError(
    JUMPSEAT_ERR_NOT_FOUND,
    'the saved output is gone: the newest 20 of each agent are kept',
  );

const notClipped = (): JumpseatError =>
  new JumpseatError(
    JUMPSEAT_ERR_NOT_FOUND,
    'this call was not clipped: its result holds its whole output',
  );

const fullOutputApiPlugin: FastifyPluginAsyncTypebox<FullOutputApiOptions> = async (
  app,
  { history, dir, remote },
) => {
  /** The saved output of the call, here or on the joined host that ran it; 404 else. */
  const locate = async (id: string, callId: string): Promise<SavedOutput> => {
    const calls = await history.calls(id);
    if (calls === undefined) throw noSuchSession(id);
    const call = calls.find((candidate) => candidate.id === callId);
    if (call === undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_NOT_FOUND,
        `session ${JSON.stringify(id)} has no call ${JSON.stringify(callId)}`,
      );
    }
    const named = savedOutputIn(call.output);
    const session = await history.session(id);
    const agent = session?.agent ?? null;
    if (named === null || agent === null) throw notClipped();
    const name = basename(named);
    if (session?.host !== undefined && remote !== null) {
      if (!isSavedOutputName(name)) throw notClipped();
      return { agent, name, host: session.host };
    }
    const path = savedOutputPath(dir, agent, name);
    if (path === null) throw notClipped();
    return { agent, path };
  };

  const open = async (saved: SavedOutput): Promise<OpenedOutput> => {
    if ('path' in saved) {
      // An unsandboxed shell can write this folder: only a plain file of ours is served,
      // never through a link, and a FIFO planted there cannot make the open wait.
      const opened = await openUntrusted(saved.path).catch(() => null);
      if (opened === null) throw gone();
      const { handle, size } = opened;
      return {
        size,
        stream: async (start, end) => createReadStream('', { fd: handle, start, end }),
        close: () => handle.close(),
      };
    }
    const host = remote?.directory.hosts.get(saved.host);
    if (host === undefined || remote === null) {
      throw new JumpseatError(
        JUMPSEAT_ERR_HOST_UNREACHABLE,
        `host ${saved.host} cannot be reached: it was forgotten, and its saved outputs with it`,
      );
    }
    return remote.files.open(host, saved.agent, saved.name);
  };

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
      const saved = await locate(id, callId);
      const file = await open(saved);
      const { size } = file;
      const range = byteRange(request.headers.range, size);
      let body: Readable | null = null;
      if (range !== 'unsatisfiable' && size > 0) {
        const { start, end } = range ?? { start: 0, end: size - 1 };
        // Before any header: a host lost before the first byte is a refusal of its own.
        body = await file.stream(start, end);
      } else {
        await file.close();
      }
      const name = `${saved.agent}-${'path' in saved ? basename(saved.path) : saved.name}`;
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
      if (range === 'unsatisfiable') {
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
      if (body === null) return reply.send('');
      // Streamed (Fastify pipes a stream as is; the typed reply knows strings). A stream that
      // fails after its first byte (a host's link dropped) cuts the reply off, never short.
      const untyped: FastifyReply = reply;
      return untyped.send(body);
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
