/**
 * What one peer replica sees of the hosts linked to this one, and the way its calls, viewers,
 * keys and file reads reach them. Each host is offered with a hello built from what this
 * replica knows; the host's news and answers go on to the peer (answers only for what the
 * peer itself asked: its call, viewer and transfer ids are its own); the peer's messages for
 * the host go down its link. Output goes to the peer within the peer's own credit window per
 * shell, from an outbox of its own: a slow peer fills its window and waits, while the host
 * and this replica's own viewers go on; past the outbox's bound the oldest bytes go and the
 * peer sees the gap at its offset, as from a host.
 *
 * The state outlives the peer's link (the relay is kept per peer replica, not per socket): a
 * link cut and back resumes each shell at the offset the peer names in its welcome, from the
 * bytes kept meanwhile, and answers that came meanwhile are delivered then.
 */
import {
  type ControlMessage,
  encodeLinkOutput,
  type HostMessage,
  LINK_ANSWER_ACK_VERSION,
  LINK_PROTOCOL_MIN_VERSION,
  linkVersionsUpTo,
} from '../../../shared/src/link.ts';
import { LinkOutbox } from '../link/output-outbox.ts';
import {
  type HostDirectory,
  type JoinedHost,
  placementKey,
  type RemoteShell,
} from './joined-hosts.ts';
import {
  encodeRelayFrame,
  type RelayDownMessage,
  type RelayUpMessage,
} from './replica-protocol.ts';
import { UnclaimedAnswers } from './unclaimed-answers.ts';

/** Answers to a peer's calls kept while its link is down, at most (the oldest go first). */
const MAX_KEPT_ANSWERS = 1000;

/** The peer's end of a link this replica dialled. */
export interface PeerSocket {
  send(message: RelayUpMessage): void;
  sendBinary(frame: Uint8Array): void;
}

interface Offered {
  readonly outbox: LinkOutbox;
  /** The peer answered this offer's hello: output may flow. */
  welcomed: boolean;
  /**
   * The peer acknowledges each answer it reads (`call_ack`; it chose link protocol 3 or later
   * for this host): an answer forwarded to it is kept until then, and forwarded again on the
   * next link if the one it went on had died unnoticed.
   */
  acknowledges: boolean;
}

type Answer = Extract<HostMessage, { type: 'call_result' | 'call_error' }>;

export class PeerRelay {
  private socket: PeerSocket | null = null;
  private readonly offered = new Map<string, Offered>();
  /** The peer's calls in flight, by id: the host each runs on. */
  private readonly calls = new Map<string, string>();
  /** The peer's viewers and file transfers, by id: the host each is on. */
  private readonly streams = new Map<string, string>();
  private kept: { host: string; message: Answer }[] = [];

  constructor(
    readonly peer: string,
    private readonly directory: HostDirectory,
    /** Answers no one here waited for: the peer's calls offered again after a move. */
    private readonly unclaimed: UnclaimedAnswers = new UnclaimedAnswers(),
  ) {}

  /** The link to the peer is up: every host linked here is offered. */
  attach(socket: PeerSocket): void {
    this.socket = socket;
    for (const host of this.directory.hosts.values()) {
      if (host.via === null && host.connected) this.offer(host);
    }
  }

  /** The link to the peer dropped: output is kept for it (within the outboxes' bounds). */
  detach(socket: PeerSocket): void {
    if (this.socket !== socket) return;
    this.socket = null;
    for (const offered of this.offered.values()) offered.welcomed = false;
  }

  /** A host (re)joined this replica: calls of the peer's it no longer knows ended there. */
  joined(host: JoinedHost, knownCalls: readonly string[]): void {
    const known = new Set(knownCalls);
    for (const [id, name] of this.calls) {
      if (name === host.name && !known.has(id)) this.calls.delete(id);
    }
    this.offer(host);
  }

  offer(host: JoinedHost): void {
    let offered = this.offered.get(host.name);
    if (offered === undefined) {
      offered = { outbox: new LinkOutbox(), welcomed: false, acknowledges: false };
      this.offered.set(host.name, offered);
    }
    offered.welcomed = false;
    const shells = [...host.shells.values()].filter((shell) => shell.alive);
    for (const shell of shells) offered.outbox.add(shell.id, shell.inbox.offset);
    const pending = new Set(this.kept.filter((k) => k.host === host.name).map((k) => k.message));
    this.socket?.send({
      type: 'offer',
      host: host.name,
      tokenId: host.tokenId,
      hello: {
        type: 'hello',
        // Every version up to the host's: a peer of an older build takes the host at its own.
        versions: linkVersionsUpTo(Math.max(host.protocol, LINK_PROTOCOL_MIN_VERSION)),
        name: host.name,
        labels: { ...host.labels },
        maxShells: host.capacity,
        dialects: [...host.dialects],
        engineVersion: host.engineVersion,
        workspaces: [...host.workspaces],
        shells: shells.map((shell) => ({ info: shell.info, offset: shell.inbox.offset })),
        calls: [
          ...[...this.calls].filter(([, name]) => name === host.name).map(([id]) => id),
          ...[...pending].map((message) => message.callId),
        ],
        ...(host.link === undefined ? {} : { link: host.link }),
        ...(host.instance === undefined ? {} : { instance: host.instance }),
      },
    });
  }

  /** A message of a host linked here, once this replica handled it. */
  hostMessage(host: JoinedHost, message: HostMessage): void {
    const offered = this.offered.get(host.name);
    switch (message.type) {
      case 'call_result':
      case 'call_error':
        if (this.calls.get(message.callId) !== host.name) return;
        this.calls.delete(message.callId);
        if (offered?.welcomed === true) this.forward(host, message);
        if (offered?.welcomed !== true || offered.acknowledges) this.keep(host.name, message);
        return;
      case 'viewer_closed':
      case 'file_opened':
      case 'file_error': {
        const id = message.type === 'viewer_closed' ? message.viewerId : message.requestId;
        if (this.streams.get(id) !== host.name) return;
        if (message.type !== 'file_opened') this.streams.delete(id);
        this.forward(host, message);
        return;
      }
      case 'shell_opened':
        // Only a shell this replica took from the host is relayed (it vetted it).
        if (offered === undefined || !host.shells.has(message.shell.info.id)) return;
        offered.outbox.add(message.shell.info.id, message.shell.offset);
        this.forward(host, message);
        return;
      case 'shell_closed':
        this.pump(host.name);
        this.forward(host, message);
        offered?.outbox.remove(message.info.id);
        return;
      case 'hello':
        return;
      default:
        this.forward(host, message);
    }
  }

  /** Whether a call on this host is the peer's. */
  ownsCall(host: JoinedHost, callId: string): boolean {
    return this.calls.get(callId) === host.name;
  }

  /** Whether a viewer or file transfer on this host is the peer's. */
  owns(host: JoinedHost, id: string): boolean {
    return this.streams.get(id) === host.name;
  }

  /** A viewer's or file transfer's frame from a host linked here: to the peer that owns it. */
  hostFrame(host: JoinedHost, id: string, frame: Uint8Array): void {
    if (!this.owns(host, id)) return;
    this.socket?.sendBinary(encodeRelayFrame(host.name, frame));
  }

  /** New output of a shell of a host linked here, at its offset. */
  output(shell: RemoteShell, offset: number, data: Uint8Array): void {
    const offered = this.offered.get(shell.host.name);
    if (offered === undefined) return;
    offered.outbox.push(shell.id, offset, Buffer.from(data.buffer, data.byteOffset, data.length));
    this.pump(shell.host.name);
  }

  /** A host's link to this replica dropped. */
  hostDown(host: JoinedHost): void {
    const offered = this.offered.get(host.name);
    if (offered === undefined) return;
    offered.welcomed = false;
    this.socket?.send({ type: 'host_down', host: host.name });
  }

  /** A host is gone for good here (lost, forgotten or now reached through another replica). */
  forget(name: string): void {
    this.offered.delete(name);
    this.kept = this.kept.filter((k) => k.host !== name);
    for (const [id, host] of this.calls) if (host === name) this.calls.delete(id);
    for (const [id, host] of this.streams) if (host === name) this.streams.delete(id);
  }

  /** A message from the peer. */
  fromPeer(message: RelayDownMessage): void {
    if (message.type === 'release') {
      this.offered.delete(message.host);
      return;
    }
    const host = this.directory.hosts.get(message.host);
    // Only hosts linked here are reached through here; a stale message finds none.
    if (host === undefined || host.via !== null) return;
    this.toHost(host, message.message);
  }

  private toHost(host: JoinedHost, message: ControlMessage): void {
    const offered = this.offered.get(host.name);
    switch (message.type) {
      case 'welcome':
        if (offered === undefined) return;
        offered.outbox.resume(new Map(message.resume.map((r) => [r.shellId, r.offset])));
        offered.welcomed = true;
        offered.acknowledges = message.version >= LINK_ANSWER_ACK_VERSION;
        this.deliverKept(host);
        this.pump(host.name);
        // The peer's `lost` list is its own view: the shells live on here.
        return;
      case 'refused':
        this.offered.delete(host.name);
        return;
      case 'credit':
        offered?.outbox.ack(message.shellId, message.offset);
        this.pump(host.name);
        return;
      case 'call_ack':
        // The peer has the answer this replica relayed (the host had its own ack from here).
        this.kept = this.kept.filter(
          (k) => k.host !== host.name || k.message.callId !== message.callId,
        );
        return;
      case 'call_start': {
        this.calls.set(message.callId, host.name);
        // The peer placed the agent's shell here: the host may announce it (as for our own).
        host.placed.add(placementKey(message.agent, message.dialect));
        // Offered again after the host's link moved here: answered already, it is not rerun.
        const answer = this.unclaimed.take(host.name, message.callId);
        if (answer !== undefined) {
          this.hostMessage(host, answer);
          return;
        }
        break;
      }
      case 'viewer_open':
        this.streams.set(message.viewerId, host.name);
        break;
      case 'file_open':
        this.streams.set(message.requestId, host.name);
        break;
      case 'viewer_close':
        this.streams.delete(message.viewerId);
        break;
      case 'file_close':
        this.streams.delete(message.requestId);
        break;
      default:
        break;
    }
    host.connection?.send(message);
  }

  private forward(host: JoinedHost, message: HostMessage): void {
    if (this.offered.get(host.name)?.welcomed !== true) return;
    this.socket?.send({ type: 'host', host: host.name, message });
  }

  private keep(host: string, message: Answer): void {
    this.kept.push({ host, message });
    if (this.kept.length > MAX_KEPT_ANSWERS) this.kept.shift();
  }

  /** The peer welcomed the host (again): the answers kept for it go; kept on until acknowledged. */
  private deliverKept(host: JoinedHost): void {
    const mine = this.kept.filter((k) => k.host === host.name);
    if (this.offered.get(host.name)?.acknowledges !== true)
      this.kept = this.kept.filter((k) => k.host !== host.name);
    for (const { message } of mine) this.forward(host, message);
  }

  private pump(name: string): void {
    const offered = this.offered.get(name);
    const socket = this.socket;
    if (offered === undefined || !offered.welcomed || socket === null) return;
    for (let frame = offered.outbox.take(); frame !== null; frame = offered.outbox.take()) {
      socket.sendBinary(
        encodeRelayFrame(name, encodeLinkOutput(frame.shellId, frame.offset, frame.data)),
      );
    }
  }
}
