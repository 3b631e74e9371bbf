/**
 * People watching shells of joined hosts, relayed over the hosts' links. The control plane
 * authenticates each person and decides what they may do (watch, take the controls, have the
 * last word); the host's own live hub serves them (host-viewers.ts). Their client frames go
 * down the link once checked here; what the host sends them is forwarded byte for byte, and
 * only to people whose viewer that host holds. A host that drops its link closes its relayed
 * sockets with a code the page reconnects on.
 */
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { LinkViewerFrame } from '../../../shared/src/link.ts';
import { LIVE_CLOSE, type Viewer } from '../../../shared/src/live.ts';
import {
  closeIfStalled,
  closeWithReason,
  VIEWER_MAX_BUFFERED_BYTES,
} from '../live/viewer-connection.ts';
import type { HostDirectory, JoinedHost, LinkConnection, RemoteShell } from './joined-hosts.ts';

/** The link protocol from which hosts serve relayed viewers. */
const VIEWERS_FROM_PROTOCOL = 2;
/** A person's socket that holds this much unsent has stopped reading: it is closed (its page
 *  reconnects and resumes); the host's viewer bound is the link's, so this one is ours. */
const MAX_RELAYED_BUFFERED_BYTES = 2 * VIEWER_MAX_BUFFERED_BYTES;
/** Sent to pages whose host dropped its link: not a final code, so they reconnect. */
const HOST_AWAY_CLOSE = 1012;

export interface RelayedJoin {
  readonly viewer: Viewer;
  readonly tokenId: string;
  readonly canControl: boolean;
  readonly inCharge: boolean;
  readonly from?: number;
}

interface Relay {
  readonly id: string;
  readonly host: JoinedHost;
  /** The link it was opened on (a host that re-links has forgotten it). */
  readonly connection: LinkConnection;
  readonly socket: WebSocket;
  readonly tokenId: string;
}

/** A relayed person's client frames, once checked, go to their host through this. */
export type RelayedOpen = { refused: string } | { forward: (text: string) => void };

export class RemoteViewers {
  private readonly relays = new Map<string, Relay>();

  constructor(
    private readonly directory: HostDirectory,
    /** The live hub's count of a token's live sockets: a refusal past its cap. */
    private readonly admit: (tokenId: string) => string | null,
    private readonly release: (tokenId: string) => void,
  ) {}

  /** The live shell of a joined host with this id, if any. */
  find(shellId: string): RemoteShell | undefined {
    const shell = this.directory.findShell(shellId);
    return shell?.alive ? shell : undefined;
  }

  /** Why this shell's viewers cannot be relayed now; undefined when they can. */
  unavailable(shell: RemoteShell): string | undefined {
    if (!shell.host.connected) {
      return `the shell's host ${shell.host.name} is unreachable; the page reconnects when it is back`;
    }
    if (shell.host.protocol < VIEWERS_FROM_PROTOCOL) {
      return `host ${shell.host.name} speaks link protocol ${shell.host.protocol}, which cannot relay viewers; upgrade it`;
    }
    return undefined;
  }

  /**
   * Relays a person's socket to the shell's host. Refused (the socket is closed with the
   * reason) when the host is away or past the token's cap; else `forward` takes their checked
   * client frames.
   */
  open(shell: RemoteShell, socket: WebSocket, join: RelayedJoin): RelayedOpen {
    const host = shell.host;
    const connection = host.connection;
    const away = this.unavailable(shell) ?? (connection === null ? 'the host is away' : undefined);
    if (connection === null || away !== undefined) {
      closeWithReason(socket, HOST_AWAY_CLOSE, away ?? 'the host is away');
      return { refused: away ?? 'the host is away' };
    }
    const refusal = this.admit(join.tokenId);
    if (refusal !== null) {
      closeWithReason(socket, LIVE_CLOSE.tooMany, refusal);
      return { refused: refusal };
    }
    const relay: Relay = { id: randomUUID(), host, connection, socket, tokenId: join.tokenId };
    this.relays.set(relay.id, relay);
    socket.on('close', () => this.end(relay, true));
    connection.send({
      type: 'viewer_open',
      viewerId: relay.id,
      shellId: shell.id,
      viewer: join.viewer,
      tokenId: join.tokenId,
      canControl: join.canControl,
      inCharge: join.inCharge,
      ...(join.from === undefined ? {} : { from: join.from }),
    });
    if (socket.readyState !== socket.OPEN) this.end(relay, true);
    return {
      forward: (text) => {
        if (this.relays.has(relay.id)) {
          connection.send({ type: 'viewer_message', viewerId: relay.id, text });
        }
      },
    };
  }

  /** A frame from a host for one of its relayed viewers (another host's are ignored). */
  frame(host: JoinedHost, frame: LinkViewerFrame): void {
    const relay = this.relays.get(frame.viewerId);
    if (relay === undefined || relay.host !== host) return;
    const { socket } = relay;
    if (socket.readyState !== socket.OPEN) return;
    if (closeIfStalled(socket, MAX_RELAYED_BUFFERED_BYTES, 'viewer')) {
      this.end(relay, true);
      return;
    }
    if (frame.binary) socket.send(frame.payload, { binary: true });
    else socket.send(Buffer.from(frame.payload).toString('utf8'));
  }

  /** The host ended a relayed viewer: the person's socket closes with its code and reason. */
  closedByHost(host: JoinedHost, viewerId: string, code: number, reason: string): void {
    const relay = this.relays.get(viewerId);
    if (relay === undefined || relay.host !== host) return;
    this.end(relay, false);
    closeWithReason(relay.socket, code, reason);
  }

  /** A host's link closed: the pages relayed on it are closed so that they reconnect. */
  linkClosed(connection: LinkConnection): void {
    for (const relay of [...this.relays.values()]) {
      if (relay.connection !== connection) continue;
      this.end(relay, false);
      closeWithReason(
        relay.socket,
        HOST_AWAY_CLOSE,
        `the shell's host ${relay.host.name} stopped answering; reconnecting`,
      );
    }
  }

  /** A revoked or expired token's relayed pages close at once. */
  disconnectToken(tokenId: string, reason: string): void {
    for (const relay of [...this.relays.values()]) {
      if (relay.tokenId !== tokenId) continue;
      this.end(relay, true);
      closeWithReason(relay.socket, LIVE_CLOSE.revoked, reason);
    }
  }

  close(): void {
    for (const relay of [...this.relays.values()]) {
      this.end(relay, false);
      closeWithReason(relay.socket, 1001, 'jumpseat is shutting down');
    }
  }

  private end(relay: Relay, tellHost: boolean): void {
    if (!this.relays.delete(relay.id)) return;
    this.release(relay.tokenId);
    if (tellHost) relay.connection.send({ type: 'viewer_close', viewerId: relay.id });
  }
}
