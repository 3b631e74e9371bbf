/**
 * Authenticates every request except the public routes: a Bearer token or a browser
 * credential (`jsb_…`, see auth/browser-sessions.ts), or on a WebSocket upgrade a single-use
 * ticket, then the route's own refusal rule. Unknown routes need a token too. No cookie is
 * read: a cookie reaches every port of the host, so it cannot hold anything that logs in.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type BrowserCredentials, BrowserSessions } from '../auth/browser-sessions.ts';
import type { LiveTickets } from '../auth/live-tickets.ts';
import type { Principal } from '../auth/principal.ts';
import { ENDED_LINK_MESSAGES, type TokenCheck, type TokenStore } from '../auth/token-store.ts';
import {
  JUMPSEAT_ERR_FORBIDDEN,
  JUMPSEAT_ERR_LINK_ENDED,
  JUMPSEAT_ERR_UNAUTHORIZED,
  JumpseatError,
} from '../errors.ts';
import type {} from './route-config.ts';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
/** The query parameter a page's WebSocket upgrade carries its ticket in. */
export const TICKET_PARAMETER = 'ticket';

export interface AuthOptions {
  readonly tokens: TokenStore;
  readonly browsers: BrowserCredentials;
  readonly tickets: LiveTickets;
}

/** What the request presented: a token, a browser credential, or a WebSocket ticket. */
export type CredentialKind = 'token' | 'browser' | 'ticket';

interface Credential {
  readonly secret: string;
  readonly kind: CredentialKind;
}

export const authHook = fp<AuthOptions>(
  async (app, { tokens, browsers, tickets }) => {
    app.decorateRequest('principal', null);
    app.decorateRequest('credential', null);
    app.addHook('onRequest', async (request) => {
      const config = request.routeOptions.config;
      if (config.public === true) return;
      let principal: Principal | undefined;
      let credential: Credential | undefined;
      try {
        credential = credentialOf(request);
        principal = await authenticate(credential, tokens, browsers, tickets);
        const refusal =
          refuseHostElsewhere(principal, request) ??
          refuseOutsideScope(principal, request) ??
          config.refuse?.(principal, request);
        if (refusal !== undefined) throw new JumpseatError(JUMPSEAT_ERR_FORBIDDEN, refusal);
      } catch (error) {
        if (error instanceof JumpseatError) reportRefusal(tokens, request, error, principal);
        throw error;
      }
      tokens.noteUse(principal, request.ip);
      request.principal = principal;
      request.credential = credential ?? null;
    });
  },
  { name: 'jumpseat-auth', fastify: '5.x' },
);

async function authenticate(
  credential: Credential | undefined,
  tokens: TokenStore,
  browsers: BrowserCredentials,
  tickets: LiveTickets,
): Promise<Principal> {
  if (credential === undefined) {
    throw new JumpseatError(
      JUMPSEAT_ERR_UNAUTHORIZED,
      'a token is required: send "Authorization: Bearer <token>" or open the login URL',
    );
  }
  // The fresh checks look in the shared database for what another replica made a moment ago.
  let checked: TokenCheck;
  if (credential.kind === 'token') checked = await tokens.checkFresh(credential.secret);
  else {
    const tokenId =
      credential.kind === 'browser'
        ? await browsers.tokenIdOf(credential.secret)
        : await tickets.redeem(credential.secret);
    checked = tokenId === undefined ? undefined : await tokens.checkIdFresh(tokenId);
  }
  if (checked === undefined) {
    throw new JumpseatError(
      JUMPSEAT_ERR_UNAUTHORIZED,
      credential.kind === 'ticket'
        ? 'the WebSocket ticket is not valid (a ticket works once, within seconds)'
        : credential.kind === 'browser'
          ? 'this browser was signed out; open the login URL again'
          : 'the token is not valid',
    );
  }
  if ('ended' in checked) {
    throw new JumpseatError(JUMPSEAT_ERR_LINK_ENDED, ENDED_LINK_MESSAGES[checked.ended]);
  }
  return checked.principal;
}

/** A host token joins as a shell host (the link's route) and reaches nothing else (403). */
function refuseHostElsewhere(principal: Principal, request: FastifyRequest): string | undefined {
  if (principal.role !== 'host' || request.routeOptions.config.hostLink === true) return undefined;
  return 'a host token can only join as a shell host';
}

/** A share link's token reaches its own shell's routes, and nothing else (403). */
function refuseOutsideScope(principal: Principal, request: FastifyRequest): string | undefined {
  if (principal.scope === undefined) return undefined;
  const config = request.routeOptions.config;
  if (config.anyScope === true) return undefined;
  const id = (request.params as { id?: unknown } | undefined)?.id;
  if (config.sessionScoped === true && id === principal.scope) return undefined;
  return `this share link reaches only the shell it was made for (${principal.scope})`;
}

function reportRefusal(
  tokens: TokenStore,
  request: FastifyRequest,
  error: JumpseatError,
  principal: Principal | undefined,
): void {
  tokens.onAuthEvent.fire({
    kind: 'refused',
    status: error.status === 401 ? 401 : 403,
    reason: error.message,
    address: request.ip,
    method: request.method,
    url: request.url.split('?')[0] ?? request.url,
    tokenId: principal?.tokenId ?? null,
    name: principal?.name ?? null,
  });
}

function credentialOf(request: FastifyRequest): Credential | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const secret = BEARER.exec(header)?.[1];
    if (secret === undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_UNAUTHORIZED,
        'the Authorization header must be "Bearer <token>"',
      );
    }
    return { secret, kind: BrowserSessions.isCredential(secret) ? 'browser' : 'token' };
  }
  // Only an upgrade may carry a ticket: it is the one request a page cannot add a header to.
  if (request.ws) {
    const ticket = (request.query as Record<string, unknown> | undefined)?.[TICKET_PARAMETER];
    if (typeof ticket === 'string' && ticket !== '') return { secret: ticket, kind: 'ticket' };
  }
  return undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** What authenticated this request; null on public routes. */
    credential: { readonly secret: string; readonly kind: CredentialKind } | null;
  }
}
