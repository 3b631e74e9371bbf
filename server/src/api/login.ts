/**
 * The browser way in. `GET /login?token=…` checks the token and serves the web app, whose
 * login view trades the token for a browser credential (`POST /api/login`, see
 * auth/browser-sessions.ts for why not a cookie) after asking when the switch was not the
 * person's own doing. `DELETE /api/login` signs this browser out; `POST /api/live-tickets`
 * gives the page a single-use ticket for its next WebSocket.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { BrowserLogin, LiveTicket } from '../../../shared/src/api.ts';
import type { BrowserCredentials } from '../auth/browser-sessions.ts';
import { type LiveTickets, TICKET_LIFETIME_MS } from '../auth/live-tickets.ts';
import type { Principal } from '../auth/principal.ts';
import { ENDED_LINK_MESSAGES, type TokenStore } from '../auth/token-store.ts';
import {
  JUMPSEAT_ERR_BAD_REQUEST,
  JUMPSEAT_ERR_LINK_ENDED,
  JUMPSEAT_ERR_UNAUTHORIZED,
  JumpseatError,
} from '../errors.ts';
import { ERROR_RESPONSES } from './error-replies.ts';
import { sendWebApp } from './web-app.ts';

export interface LoginOptions {
  readonly tokens: TokenStore;
  readonly browsers: BrowserCredentials;
  readonly tickets: LiveTickets;
  /** The built web app (tests give their own). */
  readonly webRoot?: string;
}

/** The cookie older versions kept the token in; every login clears it from the host. */
const LEGACY_COOKIE_CLEARED = 'jumpseat_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict';

/**
 * A login the person started themselves: typed or pasted (`none`), or from one of our own
 * pages. Anything else — another site, another port of this host (`same-site`), or a browser
 * that does not say — may be a page switching who they are, so the login view asks first.
 */
const OWN_NAVIGATION = new Set(['none', 'same-origin']);

export function loginNeedsConfirmation(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  return typeof site !== 'string' || !OWN_NAVIGATION.has(site);
}

const loginPlugin: FastifyPluginAsyncTypebox<LoginOptions> = async (
  app,
  { tokens, browsers, tickets, webRoot },
) => {
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
      const checked = token === undefined ? undefined : await tokens.checkFresh(token);
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
      reply.header('set-cookie', LEGACY_COOKIE_CLEARED);
      const ask = loginNeedsConfirmation(request) ? 'ask' : 'own';
      return sendWebApp(request, reply, webRoot, { 'jumpseat-login': ask });
    },
  );

  app.post(
    '/api/login',
    {
      schema: { response: { 201: BrowserLogin, ...ERROR_RESPONSES } },
      config: { anyScope: true },
    },
    async (request, reply) => {
      if (request.credential?.kind !== 'token') {
        throw new JumpseatError(
          JUMPSEAT_ERR_BAD_REQUEST,
          'trade the login link\'s token ("Authorization: Bearer <token>") for a browser credential',
        );
      }
      const principal = request.principal as Principal;
      reply.status(201).header('cache-control', 'no-store');
      return { credential: await browsers.create(principal.tokenId) };
    },
  );

  app.delete(
    '/api/login',
    { schema: { response: { ...ERROR_RESPONSES } }, config: { anyScope: true } },
    async (request, reply) => {
      if (request.credential?.kind === 'browser') await browsers.end(request.credential.secret);
      reply.status(204);
    },
  );

  app.post(
    '/api/live-tickets',
    {
      schema: { response: { 201: LiveTicket, ...ERROR_RESPONSES } },
      config: { anyScope: true },
    },
    async (request, reply) => {
      const principal = request.principal as Principal;
      reply.status(201).header('cache-control', 'no-store');
      return { ticket: tickets.issue(principal.tokenId), expiresInMs: TICKET_LIFETIME_MS };
    },
  );
};

export const login = fp(loginPlugin, {
  name: 'jumpseat-login',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors'],
});
