/**
 * The read side for people watching agents: the shells (this run's, and with `?state=all` the
 * past ones kept in history), and the calls of one shell with the result text exactly as the
 * agent got it and who held the controls.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { CallInfo, SESSION_LIST_STATES, SessionInfo } from '../../../shared/src/api.ts';
import { canSeeSession, canSupervise, type Principal } from '../auth/principal.ts';
import { JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import type { History } from '../store/history.ts';
import type { ToolService } from '../tool/tool-service.ts';
import { ERROR_RESPONSES } from './error-replies.ts';

export interface SupervisorApiOptions {
  readonly tools: ToolService;
  readonly history: History;
}

/** Session ids are opaque; this only bounds what a client can make us echo. */
export const MAX_SESSION_ID_CHARS = 200;

export const SessionParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: MAX_SESSION_ID_CHARS }),
});

export function refuseUnlessSupervisor(principal: Principal): string | undefined {
  return canSupervise(principal)
    ? undefined
    : `role "${principal.role}" may not watch shells (admin, operator or viewer may)`;
}

export function noSuchSession(id: string): JumpseatError {
  return new JumpseatError(JUMPSEAT_ERR_NOT_FOUND, `no session ${JSON.stringify(id)}`);
}

const supervisorApiPlugin: FastifyPluginAsyncTypebox<SupervisorApiOptions> = async (
  app,
  { tools, history },
) => {
  app.get(
    '/api/sessions',
    {
      schema: {
        querystring: Type.Object({
          state: Type.Optional(
            Type.Union(
              SESSION_LIST_STATES.map((state) => Type.Literal(state)),
              {
                description:
                  '`live` (default): this server run’s shells; `all`: also past shells from history (state `ended`); `ended`: only shells that ended',
              },
            ),
          ),
        }),
        response: { 200: Type.Array(SessionInfo), ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessSupervisor },
    },
    async (request) => {
      const principal = request.principal as Principal;
      // People's own shells are private: listed only to those who may see them.
      const sessions = await history.sessions(request.query.state ?? 'live', tools.sessions());
      return sessions.filter((session) => canSeeSession(principal, session));
    },
  );

  app.get(
    '/api/sessions/:id/calls',
    {
      schema: {
        params: SessionParams,
        response: { 200: Type.Array(CallInfo), ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessSupervisor, sessionScoped: true },
    },
    async (request) => {
      const { id } = request.params;
      const calls = await history.calls(id);
      if (calls === undefined) throw noSuchSession(id);
      return calls;
    },
  );
};

export const supervisorApi = fp(supervisorApiPlugin, {
  name: 'jumpseat-supervisor-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors'],
});
