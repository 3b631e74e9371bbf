/**
 * Authenticates every request except the public routes: a Bearer token, or the login cookie
 * for browsers, then the route's own refusal rule. Unknown routes need a token too.
 */
import type {} from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Principal } from '../auth/principal.ts';
import { ENDED_LINK_MESSAGES, type TokenStore } from '../auth/token-store.ts';
import {
  JUMPSEAT_ERR_FORBIDDEN,
  JUMPSEAT_ERR_LINK_ENDED,
  JUMPSEAT_ERR_UNAUTHORIZED,
  JumpseatError,
} from '../errors.ts';
import type {} from './route-config.ts';

/** Set by `GET /login`; HttpOnly, so page scripts never see the token. */
export const TOKEN_COOKIE = 'jumpseat_token';

/** Methods a browser may send across sites without asking; they must not change anything. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export interface AuthOptions {
  readonly tokens: TokenStore;
}

interface Credential {
  readonly token: string;
  readonly from: 'header' | 'cookie';
}

export const authHook = fp<AuthOptions>(
  async (app, { tokens }) => {
    app.decorateRequest('principal', null);
    app.addHook('onRequest', async (request) => {
      const config = request.routeOptions.config;
      if (config.public === true) return;
      let principal: Principal | undefined;
      try {
        principal = authenticate(request, tokens);
        const refusal =
          refuseOutsideScope(principal, request) ?? config.refuse?.(principal, request);
        if (refusal !== undefined) throw new JumpseatError(JUMPSEAT_ERR_FORBIDDEN, refusal);
      } catch (error) {
        if (error instanceof JumpseatError) reportRefusal(tokens, request, error, principal);
        throw error;
      }
      tokens.noteUse(principal, request.ip);
      request.principal = principal;
    });
  },
  { name: 'jumpseat-auth', fastify: '5.x', dependencies: ['@fastify/cookie'] },
);

function authenticate(request: FastifyRequest, tokens: TokenStore): Principal {
  const credential = credentialOf(request);
  if (credential === undefined) {
    throw new JumpseatError(
      JUMPSEAT_ERR_UNAUTHORIZED,
      'a token is required: send "Authorization: Bearer <token>" or open the login URL',
    );
  }
  const checked = tokens.check(credential.token);
  if (checked === undefined) {
    throw new JumpseatError(JUMPSEAT_ERR_UNAUTHORIZED, 'the token is not valid');
  }
  if ('ended' in checked) {
    throw new JumpseatError(JUMPSEAT_ERR_LINK_ENDED, ENDED_LINK_MESSAGES[checked.ended]);
  }
  const { principal } = checked;
  // A browser attaches the cookie to requests other local pages make (SameSite counts
  // every port of a host as one site), so changes need proof the request is our own page's.
  if (credential.from === 'cookie' && !SAFE_METHODS.has(request.method) && !isSameOrigin(request)) {
    throw new JumpseatError(
      JUMPSEAT_ERR_FORBIDDEN,
      'cross-origin request refused: send the token as "Authorization: Bearer <token>"',
    );
  }
  return principal;
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
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_UNAUTHORIZED,
        'the Authorization header must be "Bearer <token>"',
      );
    }
    return { token, from: 'header' };
  }
  const cookie = request.cookies[TOKEN_COOKIE];
  return cookie === undefined || cookie === '' ? undefined : { token: cookie, from: 'cookie' };
}

/** The request's Origin names this very server (as the browser reached it). */
function isSameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  const host = request.headers.host;
  if (origin === undefined || host === undefined) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}
