/**
 * Tokens, admin only: minting (`POST /api/tokens`; the token is shown once in the reply and
 * only its hash is kept), listing every minted token and share link (`GET /api/tokens`),
 * renaming a minted token (`PATCH /api/tokens/:id`) and revoking any (`DELETE …/:id`: its
 * holder's sockets close at once, its browsers are signed out).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { TokenInfo, TokenRename, TokenReply, TokenRequest } from '../../../shared/src/api.ts';
import { canMintTokens, type Principal } from '../auth/principal.ts';
import type { TokenStore } from '../auth/token-store.ts';
import { ERROR_RESPONSES } from './error-replies.ts';

export interface TokenApiOptions {
  readonly tokens: TokenStore;
}

function refuseUnlessAdmin(principal: Principal): string | undefined {
  return canMintTokens(principal) ? undefined : 'only the admin may mint tokens';
}

function refuseUnlessManager(principal: Principal): string | undefined {
  return canMintTokens(principal) ? undefined : 'only the admin may manage tokens';
}

const TokenParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

const tokenApiPlugin: FastifyPluginAsyncTypebox<TokenApiOptions> = async (app, { tokens }) => {
  app.post(
    '/api/tokens',
    {
      schema: { body: TokenRequest, response: { 201: TokenReply, ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessAdmin },
    },
    async (request, reply) => {
      const { token, principal } = await tokens.mint(
        request.body,
        (request.principal as Principal).name,
      );
      reply.status(201).header('cache-control', 'no-store');
      return {
        token,
        role: principal.role,
        ...(principal.role === 'agent' ? { agent: principal.agent } : {}),
        name: principal.name,
        ...(principal.role === 'agent' && principal.labels !== undefined
          ? { labels: { ...principal.labels } }
          : {}),
      };
    },
  );

  app.get(
    '/api/tokens',
    {
      schema: { response: { 200: Type.Array(TokenInfo), ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessManager },
    },
    async () => tokens.list(),
  );

  app.patch(
    '/api/tokens/:id',
    {
      schema: {
        params: TokenParams,
        body: TokenRename,
        response: { 200: TokenInfo, ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessManager },
    },
    async (request) => tokens.renameToken(request.params.id, request.body.name),
  );

  app.delete(
    '/api/tokens/:id',
    {
      schema: { params: TokenParams, response: { ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessManager },
    },
    async (request, reply) => {
      await tokens.revoke(request.params.id, (request.principal as Principal).name);
      reply.status(204);
    },
  );
};

export const tokenApi = fp(tokenApiPlugin, {
  name: 'jumpseat-token-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-json-body', 'jumpseat-errors'],
});
