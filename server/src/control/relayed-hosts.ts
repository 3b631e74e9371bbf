/**
 * The hosts another replica relays to this one over its replica link: each is a host link of
 * its own (host-link-session.ts) whose messages arrive wrapped with the host's name, so the
 * directory, calls, viewers and file transfers reach it as they reach a host joined here; the
 * host is marked as reached through that replica (`via`). A host whose link to that replica
 * drops, or the replica link itself dropping, starts the host's grace period here, as a
 * host's own link dropping does.
 */
import { type HostLinkParts, HostLinkSession } from './host-link-session.ts';
import type { LinkConnection } from './joined-hosts.ts';
import {
  decodeRelayFrame,
  type RelayDownMessage,
  type RelayUpMessage,
} from './replica-protocol.ts';

/** The close code of a replica that is stopping (its hosts are not refused, only away). */
const STOPPING_CLOSE = 1001;

export class RelayedHosts {
  private readonly sessions = new Map<string, HostLinkSession>();

  constructor(
    private readonly parts: HostLinkParts,
    /** The replica that holds these hosts' links. */
    readonly peer: string,
    private readonly send: (message: RelayDownMessage) => void,
  ) {}

  message(message: RelayUpMessage): void {
    switch (message.type) {
      case 'offer':
        this.offered(message.host, message.tokenId, message.hello);
        break;
      case 'host':
        this.sessions.get(message.host)?.text(message.message);
        break;
      case 'host_down':
        this.end(message.host);
        break;
      default:
        break;
    }
  }

  /** A relayed frame: the host's own binary frame behind its name. */
  binary(bytes: Uint8Array): void {
    const relayed = decodeRelayFrame(bytes);
    if (relayed !== null) this.sessions.get(relayed.host)?.binary(relayed.frame);
  }

  /** The replica link ended: every host relayed on it is away (its grace period starts). */
  closed(): void {
    for (const name of [...this.sessions.keys()]) this.end(name);
  }

  private offered(
    name: string,
    tokenId: string,
    hello: Extract<RelayUpMessage, { type: 'offer' }>['hello'],
  ): void {
    // The replica offers a host again when the host's link to it came back: a new link.
    this.end(name);
    const connection: LinkConnection = {
      send: (message) => this.send({ type: 'control', host: name, message }),
      sendLater: (message) => this.send({ type: 'control', host: name, message }),
      close: (code) => {
        if (this.sessions.get(name) !== session) return;
        this.end(name);
        // Refused or replaced here: the other replica stops relaying it to this one. A
        // stopping replica's close (1001) is not a refusal.
        if (code !== STOPPING_CLOSE) this.send({ type: 'release', host: name });
      },
    };
    const session = new HostLinkSession(
      this.parts,
      connection,
      { id: tokenId, name },
      this.peer,
      null,
    );
    this.sessions.set(name, session);
    session.text(hello);
  }

  private end(name: string): void {
    const session = this.sessions.get(name);
    if (session === undefined) return;
    this.sessions.delete(name);
    session.closed();
  }
}
