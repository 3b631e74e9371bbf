/**
 * `GET /api/replicas/link` (WebSocket): where another replica dials this one to relay the
 * hosts linked to it (replica-protocol.ts). Only a replica of this cluster may: the request
 * must carry the cluster's secret (from the database) as its Bearer credential, and no
 * browser's Origin; anything else is 403, whatever token it holds. The first frame names the
 * dialling replica; the rest are its hosts' relayed links (relayed-hosts.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { RawData, WebSocket } from 'ws';
import { LINK_CLOSE, MAX_LINK_MESSAGE_BYTES } from '../../../shared/src/link.ts';
import { JUMPSEAT_ERR_FORBIDDEN, JumpseatError } from '../errors.ts';
import type { HostLinkParts } from './host-link-session.ts';
import { keepAlive } from './link-keepalive.ts';
import { RelayedHosts } from './relayed-hosts.ts';
import { parseRelayUp, REPLICA_LINK_PATH } from './replica-protocol.ts';
import type { Replicas } from './replicas.ts';

export interface ReplicaEndpointOptions {
  readonly parts: HostLinkParts;
  /** This replica: the cluster's secret, and its links stopped when the server closes. */
  readonly replicas: Replicas;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Whether the request carries the cluster's secret (compared in constant time). */
function fromReplica(request: FastifyRequest, secret: string): boolean {
  if (request.headers.origin !== undefined) return false;
  const given = BEARER.exec(request.headers.authorization ?? '')?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(secret));
}

const replicaEndpointPlugin: FastifyPluginAsync<ReplicaEndpointOptions> = async (
  app,
  { parts, replicas },
) => {
  const { secret } = replicas;
  // A plugin's hook: it runs before the app's own, which close the database last.
  app.addHook('onClose', async () => replicas.close());
  app.get(
    REPLICA_LINK_PATH,
    {
      websocket: true,
      // Not a token's route: the secret is checked here, before the upgrade.
      config: { public: true },
      onRequest: async (request) => {
        if (!fromReplica(request, secret)) {
          throw new JumpseatError(
            JUMPSEAT_ERR_FORBIDDEN,
            'only a replica of this jumpseat cluster may link here',
          );
        }
      },
    },
    (socket: WebSocket) => {
      let relayed: RelayedHosts | null = null;
      const stopKeepAlive = keepAlive(socket);
      const sendText = (text: string): void => {
        if (socket.readyState === socket.OPEN) socket.send(text);
      };
      socket.on('message', (data: RawData, isBinary: boolean) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
        if (isBinary) {
          relayed?.binary(bytes);
          return;
        }
        if (bytes.length > MAX_LINK_MESSAGE_BYTES) return;
        const message = parseRelayUp(bytes.toString('utf8'));
        if (message === null) {
          socket.close(LINK_CLOSE.protocol, 'not a replica link message');
          return;
        }
        if (relayed === null) {
          if (message.type !== 'peer_hello') {
            socket.close(LINK_CLOSE.protocol, 'the first message must be peer_hello');
            return;
          }
          relayed = new RelayedHosts(parts, message.replica, (down) =>
            sendText(JSON.stringify(down)),
          );
          return;
        }
        relayed.message(message);
      });
      socket.on('close', () => {
        stopKeepAlive();
        relayed?.closed();
      });
    },
  );
};

export const replicaEndpoint = fp(replicaEndpointPlugin, {
  name: 'jumpseat-replica-endpoint',
  fastify: '5.x',
  dependencies: ['jumpseat-auth', 'jumpseat-websocket'],
});
