/**
 * The WebSocket routes: `GET /api/sessions/:id/live` (one shell's live stream, with control
 * for operators) and `GET /api/live` (the dashboard stream). Upgrades pass through the same
 * auth hook as HTTP and must come from this server's own origin when a browser sends one.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import type { RawData, WebSocket } from 'ws';
import {
  type ClientMessage,
  LIVE_CLOSE,
  MAX_CLIENT_MESSAGE_BYTES,
  parseClientMessage,
  type ServerMessage,
} from '../../../shared/src/live.ts';
import { canControl, canSeeSession, type Principal } from '../auth/principal.ts';
import { JUMPSEAT_ERR_HOST_UNREACHABLE } from '../control/remote-files.ts';
import type { RemoteViewers } from '../control/remote-viewers.ts';
import { JUMPSEAT_ERR_FORBIDDEN, JumpseatError } from '../errors.ts';
import type { LiveHub } from '../live/live-hub.ts';
import { closeWithReason } from '../live/viewer-connection.ts';
import { foreignOrigin } from './request-origin.ts';
import { noSuchSession, refuseUnlessSupervisor, SessionParams } from './supervisor-api.ts';

export interface LiveApiOptions {
  readonly hub: LiveHub;
  /** `--public-url`: its origin is this server's too. */
  readonly publicUrl: string | null;
  /** People watching shells of joined hosts (a control plane); null: shells run here. */
  readonly remote: RemoteViewers | null;
}

/** ws closes a connection (1009) past this; below it, oversized messages get an error frame. */
const MAX_WS_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * WebSocket support for the whole app. Registered before the auth hook: its own hooks must
 * see every upgrade first, so that a refused upgrade's socket is closed after the refusal.
 */
export const websocketSupport = fp(
  async (app) => {
    await app.register(websocket, {
      options: { maxPayload: MAX_WS_PAYLOAD_BYTES },
      // Closing says goodbye to every client, but a client that stopped reading never answers
      // the close handshake; the server must not wait ws's 30 s for it.
      preClose: function closeClients(done) {
        for (const client of this.websocketServer.clients) {
          client.close(WS_GOING_AWAY, 'jumpseat is shutting down');
          setTimeout(() => client.terminate(), WS_CLOSE_GRACE_MS).unref();
        }
        done();
      },
    });
  },
  { name: 'jumpseat-websocket', fastify: '5.x' },
);
/** Close code for a server going down (RFC 6455). */
const WS_GOING_AWAY = 1001;
/** How long a closing client gets to answer the close handshake. */
const WS_CLOSE_GRACE_MS = 500;
/** Connections are pinged this often; one that did not answer the last ping is dropped. */
const HEARTBEAT_MS = 30_000;
/** Messages kept from a client while its join (snapshot) is still being prepared. */
const MAX_EARLY_MESSAGES = 64;

const liveApiPlugin: FastifyPluginAsyncTypebox<LiveApiOptions> = async (
  app,
  { hub, publicUrl, remote },
) => {
  // Only this plugin's sockets: a host's link shares the WebSocket server and keeps its own
  // watch (link-endpoint.ts); this one would cut it at its second round.
  const alive = new Map<WebSocket, boolean>();
  const heartbeat = setInterval(() => {
    for (const [socket, answered] of alive) {
      if (!answered) {
        socket.terminate();
        continue;
      }
      alive.set(socket, false);
      socket.ping();
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const track = (socket: WebSocket): void => {
    alive.set(socket, true);
    socket.on('pong', () => {
      if (alive.has(socket)) alive.set(socket, true);
    });
    socket.on('close', () => alive.delete(socket));
  };
  app.addHook('onClose', async () => {
    clearInterval(heartbeat);
    hub.close();
  });

  app.get(
    '/api/sessions/:id/live',
    {
      websocket: true,
      schema: {
        params: SessionParams,
        querystring: Type.Object(
          {
            from: Type.Optional(Type.Integer({ minimum: 0 })),
            /** A page's single-use ticket (the auth hook reads it). */
            ticket: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
      },
      config: { refuse: refuseUnlessSupervisor, sessionScoped: true },
      preHandler: async (request) => {
        refuseForeignOrigin(request, publicUrl);
        const { id } = request.params as { id: string };
        if (hub.knows(id)) return;
        const shell = remote?.find(id);
        if (shell === undefined) throw noSuchSession(id);
        const away = remote?.unavailable(shell);
        if (away !== undefined) throw new JumpseatError(JUMPSEAT_ERR_HOST_UNREACHABLE, away);
      },
    },
    async (socket, request) => {
      track(socket);
      const principal = request.principal as Principal;
      const link = principal.scope !== undefined;
      const viewer = {
        id: randomUUID(),
        name: principal.name,
        role: principal.role,
        ...(link ? { link: true } : {}),
        tokenId: principal.tokenId,
      };
      const shell = hub.knows(request.params.id) ? undefined : remote?.find(request.params.id);
      if (shell !== undefined && remote !== null) {
        // A shell of a joined host: its host serves the person; the frames are checked here.
        const relayed = remote.open(shell, socket, {
          viewer,
          tokenId: principal.tokenId,
          canControl: canControl(principal),
          inCharge: principal.role === 'admin',
          ...(request.query.from === undefined ? {} : { from: request.query.from }),
        });
        if ('refused' in relayed) return;
        closeAtExpiry(socket, principal);
        socket.on('message', (data, isBinary) => {
          const checked = checkedFrame(data, isBinary, (message) =>
            socket.send(JSON.stringify(message)),
          );
          if (checked !== undefined) relayed.forward(checked.text);
        });
        return;
      }
      // Messages may arrive while the snapshot is being taken; they wait for it.
      const early: [RawData, boolean][] = [];
      let onMessage: (data: RawData, isBinary: boolean) => void = (data, isBinary) => {
        // A client that floods before its snapshot is out loses the excess, nothing else.
        if (early.length < MAX_EARLY_MESSAGES) early.push([data, isBinary]);
      };
      socket.on('message', (data, isBinary) => onMessage(data, isBinary));
      const owner = hub.ownerOf(request.params.id);
      const joined = await hub.join(request.params.id, socket, {
        viewer,
        tokenId: principal.tokenId,
        canControl: canControl(principal),
        // The admin, and the owner of a person's own shell, have the last word over it.
        inCharge:
          principal.role === 'admin' ||
          (!link && owner !== undefined && principal.tokenId === owner),
        // A person's own shell: its owner's first connection holds the controls at once.
        takeControl: principal.scope === undefined && principal.tokenId === owner,
        ...(request.query.from === undefined ? {} : { from: request.query.from }),
      });
      if (!joined) {
        socket.close(4404, 'no such session');
        return;
      }
      if ('refused' in joined) {
        closeWithReason(socket, LIVE_CLOSE.tooMany, joined.refused);
        return;
      }
      const { channel, connection } = joined;
      socket.on('close', () => hub.leave(channel, connection));
      closeAtExpiry(socket, principal);
      if (socket.readyState !== socket.OPEN) hub.leave(channel, connection);
      onMessage = (data, isBinary) => {
        const reply = (message: ServerMessage): void => connection.send(message);
        const checked = checkedFrame(data, isBinary, reply);
        if (checked === undefined) return;
        channel.handle(connection, checked.message).catch((error: unknown) => {
          request.log.error({ err: error }, 'live message failed');
          reply({ type: 'error', code: 'INTERNAL', message: 'the message could not be handled' });
        });
      };
      for (const [data, isBinary] of early.splice(0)) onMessage(data, isBinary);
    },
  );

  app.get(
    '/api/live',
    {
      websocket: true,
      config: { refuse: refuseUnlessSupervisor },
      preHandler: async (request) => refuseForeignOrigin(request, publicUrl),
    },
    async (socket, request) => {
      track(socket);
      const principal = request.principal as Principal;
      hub.addDashboard(socket, {
        tokenId: principal.tokenId,
        canSee: (session) => canSeeSession(principal, session),
      });
    },
  );
};

/** Longest timer Node keeps exact (about 24.8 days); a later expiry is checked again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A share link that expires while its holder watches disconnects them then. */
function closeAtExpiry(socket: WebSocket, principal: Principal): void {
  const { expiresAt } = principal;
  if (expiresAt === undefined) return;
  const check = (): void => {
    const left = expiresAt - Date.now();
    if (left <= 0) {
      socket.close(LIVE_CLOSE.revoked, 'the share link expired');
      return;
    }
    const timer = setTimeout(check, Math.min(left, MAX_TIMER_MS));
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
  check();
}

/** A browser's upgrade must come from a page of this server (a second line of defence). */
function refuseForeignOrigin(request: FastifyRequest, publicUrl: string | null): void {
  const origin = foreignOrigin(request, publicUrl);
  if (origin !== undefined) {
    throw new JumpseatError(
      JUMPSEAT_ERR_FORBIDDEN,
      `WebSocket refused: origin ${JSON.stringify(origin)} is not this server`,
    );
  }
}

/**
 * A client frame, when it is a text frame within the size bound and a message of the
 * protocol; else undefined, after `reply` told the client why.
 */
function checkedFrame(
  data: RawData,
  isBinary: boolean,
  reply: (message: ServerMessage) => void,
): { text: string; message: ClientMessage } | undefined {
  if (isBinary) {
    reply({ type: 'error', code: 'BAD_MESSAGE', message: 'send JSON text frames' });
    return undefined;
  }
  const size = rawLength(data);
  if (size > MAX_CLIENT_MESSAGE_BYTES) {
    reply({
      type: 'error',
      code: 'TOO_LARGE',
      message: `a message may hold at most ${MAX_CLIENT_MESSAGE_BYTES} bytes; this one held ${size}`,
    });
    return undefined;
  }
  const text = rawText(data);
  const parsed = parseClientMessage(text);
  if (!parsed.ok) {
    reply({ type: 'error', code: 'BAD_MESSAGE', message: parsed.error });
    return undefined;
  }
  return { text, message: parsed.message };
}

function rawLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

export const liveApi = fp(liveApiPlugin, {
  name: 'jumpseat-live-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors', 'jumpseat-websocket'],
});
