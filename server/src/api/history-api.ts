/**
 * History routes: a shell's control events and its recording (asciicast v2), for live and past
 * shells alike, and the auth audit for the admin.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { AuditEvent, ControlEvent } from '../../../shared/src/api.ts';
import { ASCIICAST_CONTENT_TYPE } from '../../../shared/src/asciicast.ts';
import { canMintTokens, type Principal } from '../auth/principal.ts';
import { JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import type { History } from '../store/history.ts';
import { ERROR_RESPONSES } from './error-replies.ts';
import { noSuchSession, refuseUnlessSupervisor, SessionParams } from './supervisor-api.ts';

export interface HistoryApiOptions {
  readonly history: History;
}

/** Audit events one request returns by default, and at most. */
const DEFAULT_AUDIT_LIMIT = 500;
const MAX_AUDIT_LIMIT = 10_000;

function refuseUnlessAdmin(principal: Principal): string | undefined {
  return canMintTokens(principal) ? undefined : 'only the admin may read the audit trail';
}

const historyApiPlugin: FastifyPluginAsyncTypebox<HistoryApiOptions> = async (app, { history }) => {
  app.get(
    '/api/sessions/:id/events',
    {
      schema: {
        params: SessionParams,
        response: { 200: Type.Array(ControlEvent), ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessSupervisor, sessionScoped: true },
    },
    async (request) => {
      const events = history.controlEvents(request.params.id);
      if (events === undefined) throw noSuchSession(request.params.id);
      return events;
    },
  );

  app.get(
    '/api/sessions/:id/recording',
    {
      schema: {
        params: SessionParams,
        produces: [ASCIICAST_CONTENT_TYPE],
        response: {
          200: Type.String({
            description: 'asciicast v2: a header line, then `[seconds, code, data]` per line',
          }),
          ...ERROR_RESPONSES,
        },
      },
      config: { refuse: refuseUnlessSupervisor, sessionScoped: true },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (history.session(id) === undefined) throw noSuchSession(id);
      const recording = await history.recording(id);
      if (recording === null) {
        throw new JumpseatError(
          JUMPSEAT_ERR_NOT_FOUND,
          `session ${JSON.stringify(id)} has no recording (it printed nothing, or retention deleted it)`,
        );
      }
      return reply
        .type(`${ASCIICAST_CONTENT_TYPE}; charset=utf-8`)
        .header('cache-control', 'no-store')
        .serializer((payload: unknown) => String(payload))
        .send(recording);
    },
  );

  app.get(
    '/api/audit',
    {
      schema: {
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AUDIT_LIMIT })),
        }),
        response: { 200: Type.Array(AuditEvent), ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessAdmin },
    },
    async (request) => history.audit(request.query.limit ?? DEFAULT_AUDIT_LIMIT),
  );
};

export const historyApi = fp(historyApiPlugin, {
  name: 'jumpseat-history-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors'],
});
