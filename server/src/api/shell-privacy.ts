/**
 * People's own shells are private (issue 13): every route of one shell (`/api/sessions/:id…`,
 * its live socket included) answers as if the shell did not exist to anyone but its owner, the
 * admin and its links' holders (`canSeeSession`, the rule the lists use too).
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { canSeeSession } from '../auth/principal.ts';
import type { History } from '../store/history.ts';
import type { EngineToolService } from '../tool/create-tool-service.ts';
import { noSuchSession } from './supervisor-api.ts';

export interface ShellPrivacyOptions {
  readonly tools: EngineToolService;
  readonly history: History;
}

const SHELL_ROUTE = '/api/sessions/:id';

export const shellPrivacy = fp<ShellPrivacyOptions>(
  async (app, { tools, history }) => {
    app.addHook('preHandler', async (request: FastifyRequest) => {
      const route = request.routeOptions.url;
      if (route === undefined || !(route === SHELL_ROUTE || route.startsWith(`${SHELL_ROUTE}/`))) {
        return;
      }
      const principal = request.principal;
      const id = (request.params as { id?: unknown } | undefined)?.id;
      if (principal === null || typeof id !== 'string') return;
      const session = tools.registry.find(id)?.info() ?? (await history.session(id));
      // Unknown: the route says so. Private: the same answer, so existence is not revealed.
      if (session !== undefined && !canSeeSession(principal, session)) throw noSuchSession(id);
    });
  },
  { name: 'jumpseat-shell-privacy', fastify: '5.x', dependencies: ['jumpseat-auth'] },
);
