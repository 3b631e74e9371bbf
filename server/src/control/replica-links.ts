/**
 * This replica's links to the others: one WebSocket dialled to every live peer, on which the
 * hosts linked here are relayed (replica-relay.ts), redialled with jittered backoff while the
 * peer lives. It is also the tap on this replica's own host links (host-link-session.ts): a
 * host's join, news, answers, frames and output reach every peer's relay.
 */
import type { RawData } from 'ws';
import WebSocket from 'ws';
import { jitteredPauseMs } from '../../../shared/src/backoff.ts';
import {
  type HostMessage,
  LINK_SILENCE_MS,
  MAX_LINK_MESSAGE_BYTES,
} from '../../../shared/src/link.ts';
import type { Disposable } from '../pty/disposable.ts';
import type { HostLinkTap } from './host-link-session.ts';
import type { HostDirectory, JoinedHost, RemoteShell } from './joined-hosts.ts';
import { parseRelayDown, REPLICA_LINK_PATH } from './replica-protocol.ts';
import type { ReplicaRow } from './replica-registry.ts';
import { PeerRelay, type PeerSocket } from './replica-relay.ts';
import { type CallAnswer, UnclaimedAnswers } from './unclaimed-answers.ts';

/** Pauses before redialling a peer after 0, 1, 2… failures in a row (ms, full jitter). */
const REDIAL_CEILINGS_MS = [250, 500, 1000, 2000];

/** The peer's replica link URL (ws: or wss:) from its relay URL. */
export function replicaLinkUrl(relayUrl: string): string {
  const url = new URL(relayUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = `${url.pathname.replace(/\/$/, '')}${REPLICA_LINK_PATH}`;
  url.search = '';
  url.hash = '';
  return url.toString();
}

class PeerDialer {
  private socket: WebSocket | null = null;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private refusalLogged = false;

  constructor(
    private readonly url: string,
    private readonly self: string,
    private readonly secret: string,
    readonly relay: PeerRelay,
    private readonly log: (line: string) => void,
  ) {
    this.dial();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.socket?.close(1001, 'the replica is stopping');
    this.socket = null;
  }

  private dial(): void {
    if (this.stopped) return;
    const socket = new WebSocket(replicaLinkUrl(this.url), {
      headers: { authorization: `Bearer ${this.secret}` },
      maxPayload: MAX_LINK_MESSAGE_BYTES,
      handshakeTimeout: LINK_SILENCE_MS,
    });
    this.socket = socket;
    let lastHeard = Date.now();
    const silence = setInterval(() => {
      if (Date.now() - lastHeard > LINK_SILENCE_MS) socket.terminate();
    }, LINK_SILENCE_MS / 2);
    const peer: PeerSocket = {
      send: (message) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      },
      sendBinary: (frame) => {
        if (socket.readyState === socket.OPEN) socket.send(frame, { binary: true });
      },
    };
    socket.on('open', () => {
      this.failures = 0;
      peer.send({ type: 'peer_hello', replica: this.self });
      this.relay.attach(peer);
    });
    socket.on('ping', () => {
      lastHeard = Date.now();
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      lastHeard = Date.now();
      if (isBinary) return;
      const message = parseRelayDown(String(data));
      if (message !== null) this.relay.fromPeer(message);
    });
    socket.on('unexpected-response', (_request, response) => {
      response.resume();
      // Said once per peer: redialled every few seconds, it would fill the log.
      if (!this.refusalLogged) {
        this.refusalLogged = true;
        this.log(
          `replica ${this.relay.peer} at ${this.url} refused this replica's link: HTTP ${response.statusCode} (is its --replica-url another server?)`,
        );
      }
      socket.terminate();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(silence);
      this.relay.detach(peer);
      if (this.socket !== socket || this.stopped) return;
      this.socket = null;
      const pause = jitteredPauseMs(REDIAL_CEILINGS_MS, this.failures++);
      this.timer = setTimeout(() => this.dial(), pause);
    });
  }
}

export class ReplicaLinks implements HostLinkTap {
  private readonly dialers = new Map<string, PeerDialer>();
  private readonly watched = new WeakSet<RemoteShell>();
  private readonly unclaimed = new UnclaimedAnswers();
  private readonly subscriptions: Disposable[];

  constructor(
    private readonly self: string,
    private readonly secret: string,
    private readonly directory: HostDirectory,
    private readonly log: (line: string) => void,
  ) {
    this.subscriptions = [
      directory.onShellAdopted.on((shell) => this.watch(shell)),
      directory.onHostLost.on((host) => {
        for (const relay of this.relays()) relay.forget(host.name);
        this.unclaimed.forget(host.name);
      }),
      // Its link moved to another replica: this one relays it no more (that one does).
      directory.onLetGo.on((host) => {
        for (const relay of this.relays()) {
          relay.hostDown(host);
          relay.forget(host.name);
        }
        this.unclaimed.forget(host.name);
      }),
    ];
  }

  /** Dials the peers that appeared; stops dialling those that died. */
  reconcile(peers: readonly ReplicaRow[]): void {
    const live = new Map(peers.map((peer) => [peer.id, peer.url]));
    for (const [id, dialer] of this.dialers) {
      if (live.has(id)) continue;
      dialer.stop();
      this.dialers.delete(id);
    }
    for (const [id, url] of live) {
      if (this.dialers.has(id)) continue;
      this.dialers.set(
        id,
        new PeerDialer(
          url,
          this.self,
          this.secret,
          new PeerRelay(id, this.directory, this.unclaimed),
          this.log,
        ),
      );
    }
  }

  close(): void {
    for (const dialer of this.dialers.values()) dialer.stop();
    this.dialers.clear();
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  joined(host: JoinedHost, hello: Extract<HostMessage, { type: 'hello' }>): void {
    for (const relay of this.relays()) relay.joined(host, hello.calls);
  }

  claims(host: JoinedHost, requestId: string): boolean {
    return this.relays().some((relay) => relay.owns(host, requestId));
  }

  unanswered(host: JoinedHost, answer: CallAnswer): void {
    if (this.relays().some((relay) => relay.ownsCall(host, answer.callId))) return;
    this.unclaimed.keep(host.name, answer);
  }

  message(host: JoinedHost, message: HostMessage): void {
    for (const relay of this.relays()) relay.hostMessage(host, message);
  }

  frame(host: JoinedHost, id: string, frame: Uint8Array): void {
    for (const relay of this.relays()) relay.hostFrame(host, id, frame);
  }

  down(host: JoinedHost): void {
    for (const relay of this.relays()) relay.hostDown(host);
  }

  private relays(): PeerRelay[] {
    return [...this.dialers.values()].map((dialer) => dialer.relay);
  }

  /** A shell of a host linked here: its output goes to every peer. */
  private watch(shell: RemoteShell): void {
    if (this.watched.has(shell)) return;
    this.watched.add(shell);
    shell.onOutput.on(({ offset, data }) => {
      if (shell.host.via !== null) return;
      for (const relay of this.relays()) relay.output(shell, offset, data);
    });
  }
}
