/**
 * What a route declares about who may use it, read by the auth hook and the error replies;
 * kept apart so routes and hooks share one typed vocabulary.
 */
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';

/** Why `principal` may not use the route, or undefined when it may. */
export type Refusal = (principal: Principal, request: FastifyRequest) => string | undefined;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without a token (health check, login). Every other route needs one. */
    public?: boolean;
    /** Checked after authentication; absent means any valid token will do. */
    refuse?: Refusal;
    /** Refusals render as an HTML page: a browser opens this route. */
    html?: boolean;
    /**
     * A share link's scoped token may use this route for its own shell: the route's `:id`
     * param must be the token's scope. Every route without it is 403 for scoped tokens.
     */
    sessionScoped?: boolean;
    /** Any valid token may use this route, scoped or not (who am I, my name). */
    anyScope?: boolean;
    /** The shell hosts' link: the one route a host token reaches (and only a host token). */
    hostLink?: boolean;
  }
  interface FastifyRequest {
    /** Set by the auth hook; null only on public routes. */
    principal: Principal | null;
  }
}
