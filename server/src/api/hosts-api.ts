/**
 * The shell hosts, admin only: `GET /api/hosts` (name, labels, state, shells, capacity, load,
 * versions, last seen), `POST /api/hosts/:name/drain` (no new shells there; the ones it runs
 * go on), `DELETE /api/hosts/:name/drain` (new shells may go there again), `DELETE
 * /api/hosts/:name` (forget a host that is gone). Drains and forgets hold for every replica and
 * across restarts with `--database` (host-drains-postgres.ts); 503 DATABASE_UNAVAILABLE while
 * they cannot be kept.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { HostInfo } from '../../../shared/src/api.ts';
import type { Principal } from '../auth/principal.ts';
import type { HostDirectory } from '../control/joined-hosts.ts';
import { JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import { ERROR_RESPONSES } from './error-replies.ts';

export interface HostsApiOptions {
  /** Null when this server runs its shells itself: it lists no hosts. */
  readonly directory: HostDirectory | null;
}

/** A connected host cannot be forgotten: it would join again at once. */
const JUMPSEAT_ERR_HOST_CONNECTED = { code: 'HOST_CONNECTED', status: 409 };

function refuseUnlessAdmin(principal: Principal): string | undefined {
  return principal.role === 'admin' ? undefined : 'only the admin may manage hosts';
}

const HostParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) });

const hostsApiPlugin: FastifyPluginAsyncTypebox<HostsApiOptions> = async (app, { directory }) => {
  const hostNamed = (name: string) => {
    const host = directory?.hosts.get(name);
    if (host === undefined) {
      throw new JumpseatError(JUMPSEAT_ERR_NOT_FOUND, `no host ${JSON.stringify(name)}`);
    }
    return host;
  };

  app.get(
    '/api/hosts',
    {
      schema: { response: { 200: Type.Array(HostInfo), ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessAdmin },
    },
    async () => directory?.list() ?? [],
  );

  app.post(
    '/api/hosts/:name/drain',
    {
      schema: { params: HostParams, response: { 200: HostInfo, ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessAdmin },
    },
    async (request) => {
      const host = hostNamed(request.params.name);
      await directory?.drains.drain(host.name);
      return host.info();
    },
  );

  app.delete(
    '/api/hosts/:name/drain',
    {
      schema: { params: HostParams, response: { 200: HostInfo, ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessAdmin },
    },
    async (request) => {
      const host = hostNamed(request.params.name);
      await directory?.drains.undrain(host.name);
      return host.info();
    },
  );

  app.delete(
    '/api/hosts/:name',
    {
      schema: { params: HostParams, response: { ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessAdmin },
    },
    async (request, reply) => {
      const host = hostNamed(request.params.name);
      if (host.connected) {
        throw new JumpseatError(
          JUMPSEAT_ERR_HOST_CONNECTED,
          `host ${host.name} is connected; stop it first (drain it to move new shells elsewhere)`,
        );
      }
      // Placement no longer leads there (a host joining again under the name starts afresh).
      await directory?.placements?.forgetHost(host.name);
      await directory?.drains.forget(host.name);
      directory?.forget(host);
      reply.status(204);
    },
  );
};

export const hostsApi = fp(hostsApiPlugin, {
  name: 'jumpseat-hosts-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-json-body', 'jumpseat-errors'],
});
