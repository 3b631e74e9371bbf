/**
 * Share links to one shell (`/api/sessions/:id/shares`): the owner or the admin creates a
 * scoped `viewer` or `operator` token, lists the links and revokes them. The token is shown
 * once, inside a login URL that lands its holder on the shared shell.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { ShareCreated, ShareInfo, ShareRequest } from '../../../shared/src/api.ts';
import type { Principal } from '../auth/principal.ts';
import type { TokenStore } from '../auth/token-store.ts';
import type { EngineToolService } from '../tool/create-tool-service.ts';
import { ERROR_RESPONSES } from './error-replies.ts';
import { ownedShell } from './shell-api.ts';
import { MAX_SESSION_ID_CHARS, refuseUnlessSupervisor, SessionParams } from './supervisor-api.ts';

export interface ShareApiOptions {
  readonly tools: EngineToolService;
  readonly tokens: TokenStore;
  /** `--public-url`: links name it; without one, the address the creator's request used. */
  readonly publicUrl: string | null;
  /** `--base-path`: share links carry it when no public URL names the address. */
  readonly basePath: string;
}

const ShareParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: MAX_SESSION_ID_CHARS }),
  shareId: Type.String({ minLength: 1, maxLength: MAX_SESSION_ID_CHARS }),
});

const shareApiPlugin: FastifyPluginAsyncTypebox<ShareApiOptions> = async (
  app,
  { tools, tokens, publicUrl, basePath },
) => {
  app.post(
    '/api/sessions/:id/shares',
    {
      schema: {
        params: SessionParams,
        body: ShareRequest,
        response: { 201: ShareCreated, ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessSupervisor },
    },
    async (request, reply) => {
      const principal = request.principal as Principal;
      const shell = ownedShell(tools, request.params.id, principal);
      const { token, share } = await tokens.mintShare({
        sessionId: shell.id,
        role: request.body.role,
        ...(request.body.expiresInSeconds === undefined
          ? {}
          : { expiresInSeconds: request.body.expiresInSeconds }),
        by: principal.name,
      });
      const url = new URL('login', publicUrl ?? `${request.protocol}://${request.host}${basePath}`);
      url.searchParams.set('token', token);
      reply.status(201).header('cache-control', 'no-store');
      return { share, token, url: url.href };
    },
  );

  app.get(
    '/api/sessions/:id/shares',
    {
      schema: {
        params: SessionParams,
        response: { 200: Type.Array(ShareInfo), ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessSupervisor },
    },
    async (request) => {
      const shell = ownedShell(tools, request.params.id, request.principal as Principal);
      return tokens.shares(shell.id);
    },
  );

  app.delete(
    '/api/sessions/:id/shares/:shareId',
    {
      schema: { params: ShareParams, response: { ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessSupervisor },
    },
    async (request, reply) => {
      const principal = request.principal as Principal;
      const shell = ownedShell(tools, request.params.id, principal);
      // Revoking reports the token; the live hub disconnects its holder on that report.
      await tokens.revokeShare(shell.id, request.params.shareId, principal.name);
      reply.status(204);
    },
  );
};

export const shareApi = fp(shareApiPlugin, {
  name: 'jumpseat-share-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-json-body', 'jumpseat-errors'],
});
