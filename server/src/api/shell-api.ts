/**
 * People's own shells: open one (`POST /api/sessions`), read one (`GET /api/sessions/:id`),
 * close one (`DELETE /api/sessions/:id`) and hand one to an agent
 * (`POST /api/sessions/:id/hand-off`). Agents never reach these shells; the owner (the token
 * that opened it) or the admin manages them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { HandOffRequest, NewShellRequest, SessionInfo } from '../../../shared/src/api.ts';
import { canOpenShells, ownsShell, type Principal } from '../auth/principal.ts';
import { JUMPSEAT_ERR_FORBIDDEN, JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import type { Shell } from '../session/shell.ts';
import type { History } from '../store/history.ts';
import type { EngineToolService } from '../tool/create-tool-service.ts';
import { ERROR_RESPONSES } from './error-replies.ts';
import { noSuchSession, refuseUnlessSupervisor, SessionParams } from './supervisor-api.ts';

export interface ShellApiOptions {
  readonly tools: EngineToolService;
  /** Past shells (from before a restart) are read from here. */
  readonly history: History;
}

function refuseUnlessOpener(principal: Principal): string | undefined {
  return canOpenShells(principal)
    ? undefined
    : `role "${principal.role}" may not open shells (admin or operator may)`;
}

/** The shell, or 404; then 403 unless the principal owns it (or is the admin). */
export function ownedShell(tools: EngineToolService, id: string, principal: Principal): Shell {
  const shell = tools.registry.find(id);
  if (shell === undefined) {
    throw noSuchSession(id);
  }
  if (!ownsShell(principal, shell.owner?.tokenId)) {
    throw new JumpseatError(
      JUMPSEAT_ERR_FORBIDDEN,
      shell.owner === null
        ? "only the admin may manage an agent's shell"
        : `only ${shell.owner.name} (who opened this shell) or the admin may manage it`,
    );
  }
  return shell;
}

const shellApiPlugin: FastifyPluginAsyncTypebox<ShellApiOptions> = async (
  app,
  { tools, history },
) => {
  app.post(
    '/api/sessions',
    {
      schema: {
        body: NewShellRequest,
        response: { 201: SessionInfo, ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessOpener },
    },
    async (request, reply) => {
      const principal = request.principal as Principal;
      const { dialect } = request.body;
      if (!tools.dialects().includes(dialect)) {
        throw new JumpseatError(
          JUMPSEAT_ERR_NOT_FOUND,
          `this server does not run ${dialect}; it runs: ${tools.dialects().join(', ')}`,
        );
      }
      const shell = await tools.registry.openPersonal(
        { name: principal.name, tokenId: principal.tokenId },
        dialect,
      );
      reply.status(201);
      return shell.info();
    },
  );

  app.get(
    '/api/sessions/:id',
    {
      schema: { params: SessionParams, response: { 200: SessionInfo, ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessSupervisor, sessionScoped: true },
    },
    async (request) => {
      const { id } = request.params;
      const session = tools.registry.find(id)?.info() ?? (await history.session(id));
      if (session === undefined) throw noSuchSession(id);
      return session;
    },
  );

  app.delete(
    '/api/sessions/:id',
    {
      schema: { params: SessionParams, response: { ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessSupervisor },
    },
    async (request, reply) => {
      const principal = request.principal as Principal;
      const shell = ownedShell(tools, request.params.id, principal);
      if (shell.agent !== null && principal.role !== 'admin') {
        throw new JumpseatError(
          JUMPSEAT_ERR_FORBIDDEN,
          `this shell is agent "${shell.agent}"'s now; only the admin may close it`,
        );
      }
      // Ends the whole process tree; the shell stays listed as exited.
      await shell.reset();
      reply.status(204);
    },
  );

  app.post(
    '/api/sessions/:id/hand-off',
    {
      schema: {
        params: SessionParams,
        body: HandOffRequest,
        response: { 200: SessionInfo, ...ERROR_RESPONSES },
      },
      config: { refuse: refuseUnlessSupervisor },
    },
    async (request) => {
      const shell = ownedShell(tools, request.params.id, request.principal as Principal);
      await tools.registry.handOff(shell, request.body.agent);
      return shell.info();
    },
  );
};

export const shellApi = fp(shellApiPlugin, {
  name: 'jumpseat-shell-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-json-body', 'jumpseat-errors'],
});
