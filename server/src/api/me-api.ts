/**
 * Who a token is (`GET /api/me`) and the display name others see (`PUT /api/me/name`): a
 * share link's holder gives their name on first open. Any valid token may use both.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { NameRequest, WhoAmI } from '../../../shared/src/api.ts';
import { canControl, type Principal } from '../auth/principal.ts';
import type { TokenStore } from '../auth/token-store.ts';
import { ERROR_RESPONSES } from './error-replies.ts';

export interface MeApiOptions {
  readonly tokens: TokenStore;
}

function whoAmI(principal: Principal): WhoAmI {
  return {
    id: principal.tokenId,
    name: principal.name,
    role: principal.role,
    named: principal.unnamed !== true,
    scope: principal.scope ?? null,
    canControl: canControl(principal),
  };
}

const meApiPlugin: FastifyPluginAsyncTypebox<MeApiOptions> = async (app, { tokens }) => {
  app.get(
    '/api/me',
    {
      schema: { response: { 200: WhoAmI, ...ERROR_RESPONSES } },
      config: { anyScope: true },
    },
    async (request) => whoAmI(request.principal as Principal),
  );

  app.put(
    '/api/me/name',
    {
      schema: { body: NameRequest, response: { 200: WhoAmI, ...ERROR_RESPONSES } },
      config: { anyScope: true },
    },
    async (request) => {
      const principal = request.principal as Principal;
      return whoAmI(await tokens.rename(principal.tokenId, request.body.name));
    },
  );
};

export const meApi = fp(meApiPlugin, {
  name: 'jumpseat-me-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-json-body', 'jumpseat-errors'],
});
