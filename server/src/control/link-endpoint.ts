/**
 * `GET /api/hosts/link` (WebSocket, host tokens only): where hosts dial in. The first frame
 * must be the host's hello; then its messages and output go to the host directory and the
 * remote calls (host-link-session.ts). The control plane pings every LINK_PING_MS and drops a
 * link silent for LINK_SILENCE_MS (a cut cable says nothing), which starts the host's grace
 * period (link-keepalive.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { RawData, WebSocket } from 'ws';
import {
  type ControlMessage,
  LINK_CLOSE,
  LINK_PATH,
  MAX_LINK_MESSAGE_BYTES,
  parseHostMessage,
} from '../../../shared/src/link.ts';
import type { Principal } from '../auth/principal.ts';
import { TurnWrites } from '../link/turn-writes.ts';
import { HostLinkSession, type HostLinkTap } from './host-link-session.ts';
import type { HostDirectory, LinkConnection } from './joined-hosts.ts';
import { keepAlive } from './link-keepalive.ts';
import type { RemoteCalls } from './remote-calls.ts';
import type { RemoteFiles } from './remote-files.ts';
import type { RemoteViewers } from './remote-viewers.ts';

export interface LinkEndpointOptions {
  /** Null when this server runs its shells itself (`--local-shells on`): joins are refused. */
  readonly directory: HostDirectory | null;
  readonly calls: RemoteCalls | null;
  readonly viewers: RemoteViewers | null;
  /** Saved outputs read from the hosts (null with `directory`). */
  readonly files: RemoteFiles | null;
  /** With replicas: what the others see of the hosts linked here (replica-relay.ts). */
  readonly tap?: HostLinkTap | null;
}

function refuseNonHosts(principal: Principal): string | undefined {
  return principal.role === 'host' ? undefined : 'only a host token may join as a shell host';
}

const linkEndpointPlugin: FastifyPluginAsync<LinkEndpointOptions> = async (
  app,
  { directory, calls, viewers, files, tap = null },
) => {
  app.get(
    LINK_PATH,
    { websocket: true, config: { hostLink: true, refuse: refuseNonHosts } },
    (socket: WebSocket, request) => {
      const principal = request.principal as Principal;
      // The upgraded request's socket is the link's: what this turn sends leaves together.
      const writes = new TurnWrites(request.raw.socket);
      const write = (text: string): void => {
        if (socket.readyState === socket.OPEN) socket.send(text);
      };
      const connection: LinkConnection = {
        send: (message: ControlMessage) => {
          writes.hold();
          write(JSON.stringify(message));
        },
        sendLater: (message: ControlMessage) => {
          const text = JSON.stringify(message);
          writes.putOff(() => write(text));
        },
        close: (code, reason) => socket.close(code, reason.slice(0, 120)),
      };
      if (directory === null || calls === null || viewers === null) {
        const message =
          'this server runs its shells itself; start it with --local-shells off to take hosts';
        connection.send({ type: 'refused', message });
        connection.close(LINK_CLOSE.notControlPlane, message);
        return;
      }
      const session = new HostLinkSession(
        { directory, calls, viewers, files },
        connection,
        { id: principal.tokenId, name: principal.name },
        null,
        tap,
      );
      const stopKeepAlive = keepAlive(socket);
      socket.on('message', (data: RawData, isBinary: boolean) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
        if (isBinary) {
          session.binary(bytes);
          return;
        }
        if (bytes.length > MAX_LINK_MESSAGE_BYTES) return;
        const parsed = parseHostMessage(bytes.toString('utf8'));
        if (!parsed.ok) {
          connection.close(LINK_CLOSE.protocol, parsed.error);
          return;
        }
        session.text(parsed.message);
      });
      socket.on('close', () => {
        stopKeepAlive();
        session.closed();
      });
    },
  );
};

export const linkEndpoint = fp(linkEndpointPlugin, {
  name: 'jumpseat-link-endpoint',
  fastify: '5.x',
  dependencies: ['jumpseat-auth', 'jumpseat-websocket'],
});
