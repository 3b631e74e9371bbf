/**
 * One host's link as the control plane reads it, whatever carries it: the host's own socket
 * (link-endpoint.ts) or another replica's relay of it (relayed-hosts.ts). The first message
 * must be the hello; then the host's news goes to the directory, its answers to the calls,
 * viewers and file transfers waiting for them, and its binary frames (output, viewer frames,
 * file chunks) to theirs. A tap sees a directly linked host's traffic, for the replicas that
 * reach the host through this one.
 */
import {
  decodeLinkFileChunk,
  decodeLinkOutput,
  decodeViewerFrame,
  type HostMessage,
  LINK_ANSWER_ACK_VERSION,
  LINK_CLOSE,
  LINK_OUTPUT_FRAME,
} from '../../../shared/src/link.ts';
import type { HostDirectory, JoinedHost, LinkConnection } from './joined-hosts.ts';
import type { RemoteCalls } from './remote-calls.ts';
import type { RemoteFiles } from './remote-files.ts';
import type { RemoteViewers } from './remote-viewers.ts';

export interface HostLinkParts {
  readonly directory: HostDirectory;
  readonly calls: RemoteCalls;
  readonly viewers: RemoteViewers;
  readonly files: RemoteFiles | null;
}

/** What a replica relays of its own hosts' links to the others (replica-relay.ts). */
export interface HostLinkTap {
  joined(host: JoinedHost, hello: Extract<HostMessage, { type: 'hello' }>): void;
  /** Whether a file transfer is another replica's (this one must not close it as unknown). */
  claims(host: JoinedHost, requestId: string): boolean;
  /** A call's answer no call of this replica's waited for: maybe a peer's, to offer again
   *  once the peer learns that the host's link is here now (unclaimed-answers.ts). */
  unanswered(
    host: JoinedHost,
    message: Extract<HostMessage, { type: 'call_result' | 'call_error' }>,
  ): void;
  /** A message after the hello, once this replica has handled it. */
  message(host: JoinedHost, message: HostMessage): void;
  /** A binary frame other than output (output reaches the tap through the shells'
   *  `onOutput`, deduplicated): `id` is the viewer's or the file transfer's. */
  frame(host: JoinedHost, id: string, frame: Uint8Array): void;
  down(host: JoinedHost): void;
}

/**
 * Stories read from a host (link protocol 3) before they are acknowledged on their own, when
 * no answer's acknowledgement has carried them meanwhile: a host keeps each story it sent
 * until then, and a shell that only people type in answers no call.
 */
const STORY_ACK_EVERY = 100;

export class HostLinkSession {
  private joinedHost: JoinedHost | null = null;
  /** Stories read since the last acknowledgement that named them. */
  private storiesUnacked = 0;

  constructor(
    private readonly parts: HostLinkParts,
    readonly connection: LinkConnection,
    private readonly token: { readonly id: string; readonly name: string },
    /** The replica that holds the host's link, when this link is its relay; else null. */
    private readonly via: string | null,
    private readonly tap: HostLinkTap | null,
  ) {}

  get host(): JoinedHost | null {
    return this.joinedHost;
  }

  /** A parsed and validated text message from the host. */
  text(message: HostMessage): void {
    const { directory, calls, viewers, files } = this.parts;
    const host = this.joinedHost;
    if (host === null) {
      if (message.type !== 'hello') {
        this.connection.close(LINK_CLOSE.protocol, 'the first message must be hello');
        return;
      }
      const answer = directory.join(this.connection, this.token, message, this.via);
      if ('refusal' in answer) {
        this.connection.send({ type: 'refused', message: answer.refusal });
        this.connection.close(answer.code, answer.refusal);
        return;
      }
      this.joinedHost = answer.host;
      calls.hostReturned(answer.host, message.calls, answer.moved);
      this.tap?.joined(answer.host, message);
      return;
    }
    if (message.type === 'call_result' || message.type === 'call_error') {
      host.lastSeen = new Date();
      if (!calls.answered(host, message)) this.tap?.unanswered(host, message);
      // To whoever sent it, who may let it go: the host (its own link), or the replica that
      // relays it here, which keeps it for this replica until then (replica-relay.ts).
      if (host.protocol >= LINK_ANSWER_ACK_VERSION) {
        const stories = host.storySeq > 0 ? { stories: host.storySeq } : {};
        this.connection.sendLater({ type: 'call_ack', callId: message.callId, ...stories });
        if (host.storySeq > 0) this.storiesUnacked = 0;
      }
    } else if (message.type === 'viewer_closed') {
      viewers.closedByHost(host, message.viewerId, message.code, message.reason);
    } else if (message.type === 'file_opened' || message.type === 'file_error') {
      if (this.tap?.claims(host, message.requestId) !== true) files?.received(host, message);
    } else {
      directory.received(host, message);
      if (message.type === 'shell_story' && message.seq !== undefined) this.storyRead(host);
    }
    this.tap?.message(host, message);
  }

  /** A numbered story was read (a repeat too): every STORY_ACK_EVERY, they are acknowledged. */
  private storyRead(host: JoinedHost): void {
    if (++this.storiesUnacked < STORY_ACK_EVERY || host.storySeq === 0) return;
    this.storiesUnacked = 0;
    this.connection.sendLater({ type: 'call_ack', callId: '', stories: host.storySeq });
  }

  /** A binary frame from the host: a shell's output, a file chunk or a relayed viewer's. */
  binary(bytes: Uint8Array): void {
    const host = this.joinedHost;
    if (host === null) return;
    if (bytes[0] === LINK_OUTPUT_FRAME) {
      const frame = decodeLinkOutput(bytes);
      if (frame !== null) this.parts.directory.output(host, frame);
      return;
    }
    const chunk = decodeLinkFileChunk(bytes);
    if (chunk !== null) {
      this.parts.files?.chunk(host, chunk);
      this.tap?.frame(host, chunk.requestId, bytes);
      return;
    }
    const frame = decodeViewerFrame(bytes);
    if (frame !== null) {
      this.parts.viewers.frame(host, frame);
      this.tap?.frame(host, frame.viewerId, bytes);
    }
  }

  /** The link ended: relayed viewers on it reconnect, and its host's grace period starts. */
  closed(): void {
    this.parts.viewers.linkClosed(this.connection);
    const host = this.joinedHost;
    if (host === null) return;
    this.parts.directory.disconnected(host, this.connection);
    if (host.connection === null) this.tap?.down(host);
  }
}
