/**
 * The read side for people watching agents: every live shell, and the calls of one shell
 * with the result text exactly as the agent got it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { CallInfo, SessionInfo } from '../../../shared/src/api.ts';
import { canSupervise, type Principal } from '../auth/principal.ts';
import { JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import type { ToolService } from '../tool/tool-service.ts';
import { ERROR_RESPONSES } from './error-replies.ts';

export interface SupervisorApiOptions {
  readonly tools: ToolService;
}

/** Session ids are opaque; this only bounds what a client can make us echo. */
const MAX_SESSION_ID_CHARS = 200;

export function refuseUnlessSupervisor(principal: Principal): string | undefined {
  return canSupervise(principal)
    ? undefined
    : `role "${principal.role}" may not watch shells (admin, operator or viewer may)`;
}

const supervisorApiPlugin: FastifyPluginAsyncTypebox<SupervisorApiOptions> = async (
  app,
  { tools },
) => {
  app.get(
    '/api/sessions',
    {
      schema: { response: { 200: Type.Array(SessionInfo), ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessSupervisor },
    },
    async () => tools.sessions(),
  );

  app.get(
    '/api/sessions/:id/calls',
    {
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: MAX_SESSION_ID_CHARS }) }),
        response: { 200: Type.Array(CallInfo), ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessSupervisor, sessionScoped: true },
    },
    async (request) => {
      const calls = tools.calls(request.params.id);
      if (calls === undefined) {
        throw new JumpseatError(
          JUMPSEAT_ERR_NOT_FOUND,
          `no session ${JSON.stringify(request.params.id)}`,
        );
      }
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
