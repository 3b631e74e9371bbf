/**
 * People watching a host's shells through the control plane. The control plane decides who
 * may watch and who may take the controls; here each relayed viewer joins the host's own live
 * hub exactly as a local viewer joins a server's, over a socket that is the link
 * (`RelayedSocket`): snapshots, output, presence, take-over and hand-back all behave as they
 * do for a shell of the server's own. A link that drops lets every relayed viewer go (their
 * pages reconnect once the host is back), so whoever held the controls hands them back.
 */
import {
  type ControlMessage,
  encodeViewerFrame,
  type HostMessage,
} from '../../../shared/src/link.ts';
import { LIVE_CLOSE, parseClientMessage } from '../../../shared/src/live.ts';
import { LiveHub } from '../live/live-hub.ts';
import type { ChannelSettings, ShellChannel } from '../live/shell-channel.ts';
import type { ViewerConnection, ViewerSocket } from '../live/viewer-connection.ts';
import type { ShellRegistry } from '../session/shell-registry.ts';

/** Relayed viewers one host serves at once (the control plane caps each token and shell). */
const MAX_RELAYED_VIEWERS = 4096;
/** Client messages kept while a viewer's join (its snapshot) is being prepared. */
const MAX_EARLY_MESSAGES = 64;
/** A WebSocket close reason is at most 123 bytes. */
const MAX_REASON_CHARS = 120;
/** ws's own code for a socket cut without a close handshake is not sendable; this is. */
const CUT_OFF = 1011;

/** What relayed viewers need of the link. */
export interface ViewerLinkPort {
  send(message: HostMessage): boolean;
  sendFrame(frame: Uint8Array): boolean;
  /** Bytes the link's socket holds unsent: every relayed viewer's buffer is the link's. */
  readonly bufferedAmount: number;
}

type ViewerMessage = Extract<
  ControlMessage,
  { type: 'viewer_open' | 'viewer_message' | 'viewer_close' }
>;

/** A relayed viewer's socket: frames go up the link tagged with the viewer's id. */
export class RelayedSocket implements ViewerSocket {
  readonly OPEN = 1;
  readyState = 1;

  constructor(
    private readonly viewerId: string,
    private readonly port: ViewerLinkPort,
    private readonly closed: () => void,
  ) {}

  get bufferedAmount(): number {
    return this.port.bufferedAmount;
  }

  send(data: string | Uint8Array, options?: { binary?: boolean }): void {
    if (this.readyState !== this.OPEN) return;
    const binary = typeof data !== 'string' || options?.binary === true;
    const body = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.port.sendFrame(encodeViewerFrame(this.viewerId, body, binary));
  }

  /** The host ends the viewer: the control plane closes the person's socket so. */
  close(code: number, reason: string): void {
    if (this.readyState !== this.OPEN) return;
    this.readyState = 3;
    this.port.send({
      type: 'viewer_closed',
      viewerId: this.viewerId,
      code,
      reason: reason.slice(0, MAX_REASON_CHARS),
    });
    this.closed();
  }

  terminate(): void {
    this.close(CUT_OFF, 'the viewer was cut off');
  }

  /** The person left (or the link dropped): nothing goes back. */
  drop(): void {
    if (this.readyState !== this.OPEN) return;
    this.readyState = 3;
    this.closed();
  }
}

interface Tunnel {
  readonly socket: RelayedSocket;
  readonly early: string[];
  joined: { channel: ShellChannel; connection: ViewerConnection } | null;
}

export class HostViewers {
  private readonly hub: LiveHub;
  private readonly tunnels = new Map<string, Tunnel>();

  constructor(
    registry: ShellRegistry,
    settings: ChannelSettings,
    perShell: number,
    private readonly port: ViewerLinkPort,
  ) {
    // Tokens are the control plane's to count; a host only caps viewers per shell.
    this.hub = new LiveHub(registry, undefined, settings, {
      perToken: Number.MAX_SAFE_INTEGER,
      perShell,
    });
  }

  get count(): number {
    return this.tunnels.size;
  }

  handle(message: ViewerMessage): void {
    switch (message.type) {
      case 'viewer_open':
        void this.open(message);
        break;
      case 'viewer_message': {
        const tunnel = this.tunnels.get(message.viewerId);
        if (tunnel === undefined) return;
        if (tunnel.joined === null) {
          if (tunnel.early.length < MAX_EARLY_MESSAGES) tunnel.early.push(message.text);
        } else this.deliver(tunnel, message.text);
        break;
      }
      case 'viewer_close':
        this.tunnels.get(message.viewerId)?.socket.drop();
        break;
    }
  }

  /** The link dropped: every relayed viewer goes (the control plane closed their sockets). */
  linkLost(): void {
    for (const tunnel of [...this.tunnels.values()]) tunnel.socket.drop();
  }

  close(): void {
    this.linkLost();
    this.hub.close();
  }

  private async open(message: Extract<ViewerMessage, { type: 'viewer_open' }>): Promise<void> {
    const { viewerId } = message;
    if (this.tunnels.has(viewerId)) return; // sent twice: it joined once
    const socket = new RelayedSocket(viewerId, this.port, () => this.forget(viewerId));
    if (this.tunnels.size >= MAX_RELAYED_VIEWERS) {
      socket.close(LIVE_CLOSE.tooMany, `this host serves ${MAX_RELAYED_VIEWERS} viewers at most`);
      return;
    }
    const tunnel: Tunnel = { socket, early: [], joined: null };
    this.tunnels.set(viewerId, tunnel);
    let joined: Awaited<ReturnType<LiveHub['join']>>;
    try {
      joined = await this.hub.join(message.shellId, socket, {
        viewer: message.viewer,
        tokenId: message.tokenId,
        canControl: message.canControl,
        inCharge: message.inCharge,
        ...(message.from === undefined ? {} : { from: message.from }),
      });
    } catch {
      socket.close(CUT_OFF, 'the host could not add this viewer');
      return;
    }
    if (joined === null) {
      socket.close(LIVE_CLOSE.gone, 'this shell is no longer on its host');
      return;
    }
    if ('refused' in joined) {
      socket.close(LIVE_CLOSE.tooMany, joined.refused);
      return;
    }
    if (socket.readyState !== socket.OPEN) {
      // The person left while the snapshot was being made.
      this.hub.leave(joined.channel, joined.connection);
      return;
    }
    tunnel.joined = joined;
    for (const text of tunnel.early.splice(0)) this.deliver(tunnel, text);
  }

  private deliver(tunnel: Tunnel, text: string): void {
    const joined = tunnel.joined;
    if (joined === null) return;
    const { channel, connection } = joined;
    const parsed = parseClientMessage(text);
    if (!parsed.ok) {
      connection.send({ type: 'error', code: 'BAD_MESSAGE', message: parsed.error });
      return;
    }
    channel.handle(connection, parsed.message).catch(() => {
      connection.send({
        type: 'error',
        code: 'INTERNAL',
        message: 'the message could not be handled',
      });
    });
  }

  private forget(viewerId: string): void {
    const tunnel = this.tunnels.get(viewerId);
    if (tunnel === undefined) return;
    this.tunnels.delete(viewerId);
    if (tunnel.joined !== null) this.hub.leave(tunnel.joined.channel, tunnel.joined.connection);
  }
}
