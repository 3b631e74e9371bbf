/**
 * History routes: a shell's control events and its recording (asciicast v2), for live and past
 * shells alike, and the auth audit for the admin.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { AUDIT_KINDS, AuditEvent, type AuditQuery, ControlEvent } from '../../../shared/src/api.ts';
import { ASCIICAST_CONTENT_TYPE } from '../../../shared/src/asciicast.ts';
import { canMintTokens, type Principal } from '../auth/principal.ts';
import { JUMPSEAT_ERR_BAD_REQUEST, JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import type { History } from '../store/history.ts';
import { ERROR_RESPONSES } from './error-replies.ts';
import { noSuchSession, refuseUnlessSupervisor, SessionParams } from './supervisor-api.ts';

export interface HistoryApiOptions {
  readonly history: History;
  /** Says which token ids are share links, so the timeline marks their holders. */
  readonly isShareLink: (tokenId: string) => boolean;
}

/** Audit events one request returns by default, and at most. */
const DEFAULT_AUDIT_LIMIT = 500;
const MAX_AUDIT_LIMIT = 10_000;

const AuditQuerystring = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_AUDIT_LIMIT, description: 'Rows at most (500)' }),
  ),
  kind: Type.Optional(
    Type.String({
      description: `Only these kinds, comma-separated: ${AUDIT_KINDS.join(', ')}`,
    }),
  ),
  token: Type.Optional(Type.String({ minLength: 1, description: 'Only events of this token id' })),
  since: Type.Optional(Type.String({ description: 'Only events at or after this ISO time' })),
  until: Type.Optional(Type.String({ description: 'Only events before this ISO time' })),
  before: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Only rows with a smaller id (the next page)' }),
  ),
});

/** The audit filters a request asks for; 400 naming a bad kind or time. */
function auditQuery(query: {
  limit?: number;
  kind?: string;
  token?: string;
  since?: string;
  until?: string;
  before?: number;
}): AuditQuery {
  const kinds = query.kind?.split(',').map((kind) => kind.trim());
  const unknown = kinds?.find((kind) => !(AUDIT_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined) {
    throw new JumpseatError(
      JUMPSEAT_ERR_BAD_REQUEST,
      `kind must be among ${AUDIT_KINDS.join(', ')} (got ${JSON.stringify(unknown)})`,
    );
  }
  const time = (name: 'since' | 'until'): string | undefined => {
    const raw = query[name];
    if (raw === undefined) return undefined;
    const ms = Date.parse(raw);
    if (Number.isNaN(ms)) {
      throw new JumpseatError(
        JUMPSEAT_ERR_BAD_REQUEST,
        `${name} must be an ISO time like 2026-01-31T12:00:00Z (got ${JSON.stringify(raw)})`,
      );
    }
    return new Date(ms).toISOString();
  };
  const since = time('since');
  const until = time('until');
  return {
    limit: query.limit ?? DEFAULT_AUDIT_LIMIT,
    ...(kinds === undefined ? {} : { kinds: kinds as AuditEvent['kind'][] }),
    ...(query.token === undefined ? {} : { tokenId: query.token }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(query.before === undefined ? {} : { before: query.before }),
  };
}

function refuseUnlessAdmin(principal: Principal): string | undefined {
  return canMintTokens(principal) ? undefined : 'only the admin may read the audit trail';
}

const historyApiPlugin: FastifyPluginAsyncTypebox<HistoryApiOptions> = async (
  app,
  { history, isShareLink },
) => {
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
      const events = await history.controlEvents(request.params.id);
      if (events === undefined) throw noSuchSession(request.params.id);
      return events.map((event) =>
        typeof event.tokenId === 'string' && isShareLink(event.tokenId)
          ? { ...event, link: true }
          : event,
      );
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
      if ((await history.session(id)) === undefined) throw noSuchSession(id);
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
        querystring: AuditQuerystring,
        response: { 200: Type.Array(AuditEvent), ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessAdmin },
    },
    async (request) => history.audit(auditQuery(request.query)),
  );
};

export const historyApi = fp(historyApiPlugin, {
  name: 'jumpseat-history-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors'],
});
