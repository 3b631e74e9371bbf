/**
 * `GET /api/hosts/link` (WebSocket, host tokens only): where hosts dial in. The first frame
 * must be the host's hello; then its messages and output go to the host directory and the
 * remote calls. The control plane pings every LINK_PING_MS and drops a link silent for
 * LINK_SILENCE_MS (a cut cable says nothing), which starts the host's grace period.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { RawData, WebSocket } from 'ws';
import {
  type ControlMessage,
  decodeLinkFileChunk,
  decodeLinkOutput,
  decodeViewerFrame,
  LINK_CLOSE,
  LINK_OUTPUT_FRAME,
  LINK_PATH,
  LINK_PING_MS,
  LINK_SILENCE_MS,
  MAX_LINK_MESSAGE_BYTES,
  parseHostMessage,
} from '../../../shared/src/link.ts';
import type { Principal } from '../auth/principal.ts';
import type { HostDirectory, JoinedHost, LinkConnection } from './joined-hosts.ts';
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
}

function refuseNonHosts(principal: Principal): string | undefined {
  return principal.role === 'host' ? undefined : 'only a host token may join as a shell host';
}

const linkEndpointPlugin: FastifyPluginAsync<LinkEndpointOptions> = async (
  app,
  { directory, calls, viewers, files },
) => {
  app.get(
    LINK_PATH,
    { websocket: true, config: { hostLink: true, refuse: refuseNonHosts } },
    (socket: WebSocket, request) => {
      const principal = request.principal as Principal;
      const connection: LinkConnection = {
        send: (message: ControlMessage) => {
          if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
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
      let host: JoinedHost | null = null;
      let lastHeard = Date.now();
      const heartbeat = setInterval(() => {
        if (Date.now() - lastHeard > LINK_SILENCE_MS) {
          // Timers run before sockets are read: after a stall of this process, what the host
          // sent meanwhile is read first, and only then is silence silence.
          setImmediate(() => {
            if (Date.now() - lastHeard > LINK_SILENCE_MS) socket.terminate();
          });
          return;
        }
        socket.ping();
      }, LINK_PING_MS);
      socket.on('pong', () => {
        lastHeard = Date.now();
      });
      socket.on('message', (data: RawData, isBinary: boolean) => {
        lastHeard = Date.now();
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
        if (isBinary) {
          if (host === null) return;
          if (bytes[0] === LINK_OUTPUT_FRAME) {
            const frame = decodeLinkOutput(bytes);
            if (frame !== null) directory.output(host, frame);
            return;
          }
          const chunk = decodeLinkFileChunk(bytes);
          if (chunk !== null) {
            files?.chunk(host, chunk);
            return;
          }
          const frame = decodeViewerFrame(bytes);
          if (frame !== null) viewers.frame(host, frame);
          return;
        }
        if (bytes.length > MAX_LINK_MESSAGE_BYTES) return;
        const parsed = parseHostMessage(bytes.toString('utf8'));
        if (!parsed.ok) {
          connection.close(LINK_CLOSE.protocol, parsed.error);
          return;
        }
        const message = parsed.message;
        if (host === null) {
          if (message.type !== 'hello') {
            connection.close(LINK_CLOSE.protocol, 'the first message must be hello');
            return;
          }
          const answer = directory.join(
            connection,
            { id: principal.tokenId, name: principal.name },
            message,
          );
          if ('refusal' in answer) {
            connection.send({ type: 'refused', message: answer.refusal });
            connection.close(answer.code, answer.refusal);
            return;
          }
          host = answer.host;
          calls.hostReturned(host, message.calls);
          return;
        }
        if (message.type === 'call_result' || message.type === 'call_error') {
          host.lastSeen = new Date();
          calls.answered(host, message);
        } else if (message.type === 'viewer_closed') {
          viewers.closedByHost(host, message.viewerId, message.code, message.reason);
        } else if (message.type === 'file_opened' || message.type === 'file_error') {
          files?.received(host, message);
        } else directory.received(host, message);
      });
      socket.on('close', () => {
        clearInterval(heartbeat);
        viewers.linkClosed(connection);
        if (host !== null) directory.disconnected(host, connection);
      });
    },
  );
};

export const linkEndpoint = fp(linkEndpointPlugin, {
  name: 'jumpseat-link-endpoint',
  fastify: '5.x',
  dependencies: ['jumpseat-auth', 'jumpseat-websocket'],
});
