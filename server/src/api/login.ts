/**
 * The browser way in: `GET /login?token=…` checks the token, keeps it in an HttpOnly cookie
 * and redirects, so the token leaves the address bar (and the history entry) at once.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { ENDED_LINK_MESSAGES, type TokenStore } from '../auth/token-store.ts';
import { JUMPSEAT_ERR_LINK_ENDED, JUMPSEAT_ERR_UNAUTHORIZED, JumpseatError } from '../errors.ts';
import { TOKEN_COOKIE } from './auth-hook.ts';

export interface LoginOptions {
  readonly tokens: TokenStore;
}

const loginPlugin: FastifyPluginAsyncTypebox<LoginOptions> = async (app, { tokens }) => {
  app.get(
    '/login',
    {
      schema: { querystring: Type.Object({ token: Type.Optional(Type.String()) }) },
      config: { public: true, html: true },
    },
    async (request, reply) => {
      // The URL holds a token: keep it out of caches and out of the next page's Referer.
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      const token = request.query.token;
      const checked = token === undefined ? undefined : tokens.check(token);
      if (checked !== undefined && 'ended' in checked) {
        const message = ENDED_LINK_MESSAGES[checked.ended];
        throw new JumpseatError(
          JUMPSEAT_ERR_LINK_ENDED,
          `${message[0]?.toUpperCase()}${message.slice(1)}.`,
        );
      }
      if (token === undefined || checked === undefined) {
        throw new JumpseatError(
          JUMPSEAT_ERR_UNAUTHORIZED,
          'This login link is not valid. A share link may have expired or been revoked: ask for a new one. As the admin, use the login URL jumpseat printed when it started.',
        );
      }
      reply.setCookie(TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'strict', path: '/' });
      const { principal } = checked;
      // A share link lands on its shell: the dashboard is not for it.
      const page =
        principal.scope === undefined ? '/' : `/sessions/${encodeURIComponent(principal.scope)}`;
      return reply.redirect(page, 303);
    },
  );
};

export const login = fp(loginPlugin, {
  name: 'jumpseat-login',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['@fastify/cookie', 'jumpseat-errors'],
});
