/**
 * Minting tokens (`POST /api/tokens`, admin only): the token is shown once in the reply and
 * only its hash is kept.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { TokenReply, TokenRequest } from '../../../shared/src/api.ts';
import { canMintTokens, type Principal } from '../auth/principal.ts';
import type { TokenStore } from '../auth/token-store.ts';
import { ERROR_RESPONSES } from './error-replies.ts';

export interface TokenApiOptions {
  readonly tokens: TokenStore;
}

function refuseUnlessAdmin(principal: Principal): string | undefined {
  return canMintTokens(principal) ? undefined : 'only the admin may mint tokens';
}

const tokenApiPlugin: FastifyPluginAsyncTypebox<TokenApiOptions> = async (app, { tokens }) => {
  app.post(
    '/api/tokens',
    {
      schema: { body: TokenRequest, response: { 201: TokenReply, ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessAdmin },
    },
    async (request, reply) => {
      const { token, principal } = tokens.mint(request.body, (request.principal as Principal).name);
      reply.status(201).header('cache-control', 'no-store');
      return {
        token,
        role: principal.role,
        ...(principal.role === 'agent' ? { agent: principal.agent } : {}),
        name: principal.name,
      };
    },
  );
};

export const tokenApi = fp(tokenApiPlugin, {
  name: 'jumpseat-token-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-json-body', 'jumpseat-errors'],
});
