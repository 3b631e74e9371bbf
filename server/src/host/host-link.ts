/**
 * A host's one connection to its control plane: dials out (no inbound port), says hello,
 * and keeps the link up, reconnecting with jittered backoff. While the link is down the
 * shells live on for the grace period; once it is back, output resumes at the offsets the
 * control plane names and kept answers go up. A refusal that retrying cannot fix (another
 * protocol version, a token that is not a host's) ends the host with the reason.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import WebSocket, { type RawData } from 'ws';
import { jitteredPauseMs } from '../../../shared/src/backoff.ts';
import {
  encodeLinkOutput,
  type HostMessage,
  LINK_ANSWER_ACK_VERSION,
  LINK_CLOSE,
  LINK_PATH,
  LINK_PROTOCOL_MIN_VERSION,
  LINK_SILENCE_MS,
  linkVersionsUpTo,
  MAX_LINK_MESSAGE_BYTES,
  parseControlMessage,
} from '../../../shared/src/link.ts';
import { TurnWrites } from '../link/turn-writes.ts';
import type { HostShells } from './host-shells.ts';
import type { HostViewers } from './host-viewers.ts';
import { type LinkProxy, proxyAgent } from './link-proxy.ts';

/** Ceilings of the pause before each reconnection attempt (ms): quick at first, then calm. */
const RECONNECT_CEILINGS_MS = [200, 500, 1000, 2000, 4000, 8000];
/** Output waits while the socket holds this much unsent (bytes): frames of every shell queue
 *  behind bytes already handed to the kernel, so the queue is kept short. */
const SOCKET_HIGH_WATER_BYTES = 1024 * 1024;
/** How soon a full socket is looked at again (ms). */
const SOCKET_RETRY_MS = 5;
/** This host process, in its hellos: the control plane counts its stories per process. */
const INSTANCE = randomUUID();
/** How often the link's silence is checked (ms). */
const SILENCE_CHECK_MS = 1000;

export interface HostIdentity {
  /** `--name`; undefined: the token's name. */
  readonly name: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  readonly maxShells: number;
  readonly dialects: readonly ('bash' | 'pwsh')[];
  readonly engineVersion: string;
}

export interface HostLinkOptions {
  /** The control plane's base URL (http:, https:, ws: or wss:). */
  readonly join: string;
  readonly token: string;
  readonly identity: HostIdentity;
  /** How long shells outlive a lost link until the control plane says otherwise (ms). */
  readonly graceMs: number;
  /** The proxy the link is tunnelled through; undefined: dialled directly. */
  readonly proxy?: LinkProxy | undefined;
  /** One line for the operator (stderr). */
  readonly log: (line: string) => void;
  /** The link was refused for good (wrong version, not a host token): the host stops. */
  readonly fatal: (message: string) => void;
}

/** `http://cp:7400/` → `ws://cp:7400/api/hosts/link`. */
export function linkUrl(join: string): string {
  const url = new URL(join);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${LINK_PATH}`;
  url.search = '';
  url.hash = '';
  return url.toString();
}

export class HostLink {
  private socket: WebSocket | null = null;
  /** The socket's writes of one turn leave together (set once the link is upgraded). */
  private writes: TurnWrites | null = null;
  /** Welcomed: the link carries calls and output. */
  private up = false;
  private failures = 0;
  /** Links made so far (the hello's `link`). */
  private links = 0;
  private graceMs: number;
  private graceTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private pumpTimer: NodeJS.Timeout | undefined;
  private lastHeard = Date.now();
  private readonly silence: NodeJS.Timeout;
  private stopped = false;
  /** What the control plane said when it refused this host (the close reason is short). */
  private refusal: string | undefined;
  /** The protocol version the control plane chose at the last welcome. */
  private protocol = LINK_PROTOCOL_MIN_VERSION;
  /** The last reason a join failed, logged once until another reason or a join. */
  private joinFailure: string | undefined;
  private shells!: HostShells;
  private viewers: HostViewers | undefined;

  constructor(private readonly options: HostLinkOptions) {
    this.graceMs = options.graceMs;
    this.silence = setInterval(() => this.checkSilence(), SILENCE_CHECK_MS);
  }

  /** Starts dialling; `shells` is the engine the link serves, `viewers` its relayed people. */
  start(shells: HostShells, viewers?: HostViewers): void {
    this.shells = shells;
    this.viewers = viewers;
    this.connect();
  }

  get connected(): boolean {
    return this.up;
  }

  /** Whether the control plane acknowledges answers (else one sent is one delivered). */
  get acknowledgesAnswers(): boolean {
    return this.protocol >= LINK_ANSWER_ACK_VERSION;
  }

  send(message: HostMessage): boolean {
    if (!this.up || this.socket?.readyState !== WebSocket.OPEN) return false;
    this.writes?.hold();
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /**
   * A message nobody waits for (the news that a call started): it goes before the link's next
   * write, or within a few ms (turn-writes.ts); false when the link is down.
   */
  sendLater(message: HostMessage): boolean {
    const socket = this.socket;
    if (!this.up || socket?.readyState !== WebSocket.OPEN || this.writes === null) {
      return this.send(message);
    }
    const text = JSON.stringify(message);
    this.writes.putOff(() => {
      if (socket.readyState === WebSocket.OPEN) socket.send(text);
    });
    return true;
  }

  /** Sends one binary frame (a relayed viewer's, a saved output's chunk); false when the link is down. */
  sendFrame(frame: Uint8Array): boolean {
    if (!this.up || this.socket?.readyState !== WebSocket.OPEN) return false;
    this.writes?.hold();
    this.socket.send(frame);
    return true;
  }

  /** Bytes the link's socket holds unsent. */
  get bufferedAmount(): number {
    return this.socket?.bufferedAmount ?? 0;
  }

  /** Sends what output the shells' credit allows, shells taking turns. */
  pumpOutput(): void {
    if (this.pumpTimer !== undefined) return;
    const socket = this.socket;
    if (!this.up || socket?.readyState !== WebSocket.OPEN) return;
    while (socket.bufferedAmount < SOCKET_HIGH_WATER_BYTES) {
      const frame = this.shells.outbox.take();
      if (frame === null) return;
      this.writes?.hold();
      socket.send(encodeLinkOutput(frame.shellId, frame.offset, frame.data));
    }
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = undefined;
      this.pumpOutput();
    }, SOCKET_RETRY_MS);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.silence);
    clearTimeout(this.graceTimer);
    clearTimeout(this.retryTimer);
    clearTimeout(this.pumpTimer);
    this.socket?.close(1001, 'the host is stopping');
  }

  private connect(): void {
    if (this.stopped) return;
    const { proxy } = this.options;
    // One agent per attempt, so that what its proxy answered is this attempt's.
    const agent = proxy === undefined ? undefined : proxyAgent(proxy);
    /** The proxy's answer to this attempt's CONNECT; undefined: not (yet) answered. */
    let tunnel: { statusCode?: number; statusText?: string } | undefined;
    agent?.once('proxyConnect', (answer: { statusCode?: number; statusText?: string }) => {
      tunnel = answer;
    });
    const socket = new WebSocket(linkUrl(this.options.join), {
      headers: { authorization: `Bearer ${this.options.token}` },
      maxPayload: MAX_LINK_MESSAGE_BYTES,
      handshakeTimeout: LINK_SILENCE_MS,
      ...(agent === undefined ? {} : { agent }),
    });
    this.socket = socket;
    this.writes = null;
    this.lastHeard = Date.now();
    socket.on('upgrade', (response: IncomingMessage) => {
      if (this.socket === socket) this.writes = new TurnWrites(response.socket);
    });
    socket.on('unexpected-response', (_request, response) => {
      if (proxy !== undefined && tunnel?.statusCode !== 200) {
        // The proxy's own answer, not the control plane's: its refusal is an outage to retry.
        response.resume();
        this.lost(socket, proxyRefusal(proxy, this.options.join, response));
        return;
      }
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => {
        const message = messageOf(body) ?? `HTTP ${response.statusCode}`;
        if (response.statusCode === 401 || response.statusCode === 403) {
          this.options.fatal(`the control plane refused this host: ${message}`);
          return;
        }
        this.lost(socket, message);
      });
    });
    socket.on('open', () => {
      const { identity } = this.options;
      this.links++;
      socket.send(
        JSON.stringify({
          type: 'hello',
          versions: linkVersionsUpTo(),
          ...(identity.name === undefined ? {} : { name: identity.name }),
          labels: identity.labels,
          maxShells: identity.maxShells,
          dialects: [...identity.dialects],
          engineVersion: identity.engineVersion,
          workspaces: this.shells.workspaces(),
          shells: this.shells.shells(),
          calls: this.shells.callIds(),
          link: this.links,
          instance: INSTANCE,
        } satisfies HostMessage),
      );
    });
    socket.on('ping', () => {
      this.lastHeard = Date.now();
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      this.lastHeard = Date.now();
      if (isBinary) return;
      this.onMessage(String(data));
    });
    socket.on('close', (code: number, reason: Buffer) => {
      // Refusals that retrying cannot fix end the host; the rest are outages.
      if (
        code === LINK_CLOSE.incompatible ||
        code === LINK_CLOSE.replaced ||
        code === LINK_CLOSE.notControlPlane ||
        code === LINK_CLOSE.forgotten
      ) {
        this.options.fatal(
          this.refusal ?? (reason.toString() || 'the control plane closed the link for good'),
        );
        return;
      }
      this.lost(socket, `closed: ${code}${reason.length > 0 ? ` ${reason.toString()}` : ''}`);
    });
    socket.on('error', (error) => {
      // Before the proxy answered, the error is the way to the proxy's.
      const why =
        proxy !== undefined && tunnel === undefined
          ? `cannot reach the proxy ${proxy.shown}: ${error.message}`
          : error.message;
      this.lost(socket, why);
    });
  }

  private onMessage(text: string): void {
    const parsed = parseControlMessage(text);
    if (!parsed.ok) {
      this.options.log(`ignored a message from the control plane: ${parsed.error}`);
      return;
    }
    const message = parsed.message;
    if (message.type === 'refused') {
      this.refusal = message.message;
      this.options.log(`the control plane refused this host: ${message.message}`);
      return;
    }
    if (message.type === 'welcome') {
      this.up = true;
      this.protocol = message.version;
      this.failures = 0;
      this.graceMs = message.graceMs;
      clearTimeout(this.graceTimer);
      this.graceTimer = undefined;
      this.shells.outbox.resume(new Map(message.resume.map((r) => [r.shellId, r.offset])));
      this.shells.endShells(message.lost);
      this.shells.deliverKeptAnswers();
      this.joinFailure = undefined;
      const via =
        this.options.proxy === undefined ? '' : ` through the proxy ${this.options.proxy.shown}`;
      this.options.log(`joined ${this.options.join}${via} (link protocol ${message.version})`);
      this.pumpOutput();
      return;
    }
    if (
      message.type === 'viewer_open' ||
      message.type === 'viewer_message' ||
      message.type === 'viewer_close'
    ) {
      this.viewers?.handle(message);
      return;
    }
    this.shells.handle(message);
  }

  /** The link went down (once per socket): shells live on for the grace period. */
  private lost(socket: WebSocket, why: string): void {
    if (this.socket !== socket) return;
    this.socket = null;
    socket.removeAllListeners('close');
    socket.on('error', () => undefined);
    socket.terminate();
    if (this.up && !this.stopped)
      this.options.log(`lost the link to the control plane (${why}); reconnecting`);
    else if (!this.up && !this.stopped && why !== this.joinFailure) {
      // Once per reason: a host left waiting for its control plane (or its proxy) says why
      // without a line every few seconds.
      this.joinFailure = why;
      this.options.log(`join failed: ${why}; retrying`);
    }
    this.up = false;
    this.viewers?.linkLost();
    if (this.stopped) return;
    if (this.graceTimer === undefined && this.shells.liveCount() > 0) {
      // The control plane notices the silence up to LINK_SILENCE_MS later than the host may.
      this.graceTimer = setTimeout(() => {
        this.graceTimer = undefined;
        if (this.up) return;
        this.options.log(`no link for ${this.graceMs} ms: ending this host's shells`);
        this.shells.endAll();
      }, this.graceMs + LINK_SILENCE_MS);
    }
    const pause = jitteredPauseMs(RECONNECT_CEILINGS_MS, this.failures++);
    this.retryTimer = setTimeout(() => this.connect(), pause);
  }

  private checkSilence(): void {
    const socket = this.socket;
    if (socket === null || Date.now() - this.lastHeard < LINK_SILENCE_MS) return;
    // Timers run before sockets are read: after a stall of this process (a loaded machine),
    // what the control plane sent meanwhile is read first, and only then is silence silence.
    setImmediate(() => {
      if (this.socket === socket && Date.now() - this.lastHeard >= LINK_SILENCE_MS) {
        this.lost(socket, `nothing heard for ${LINK_SILENCE_MS / 1000} s`);
      }
    });
  }
}

/** Why the proxy would not open the tunnel, with what to do about an authentication refusal. */
function proxyRefusal(proxy: LinkProxy, join: string, response: IncomingMessage): string {
  const target = new URL(join);
  const port = target.port || (['https:', 'wss:'].includes(target.protocol) ? '443' : '80');
  const status = `${response.statusCode ?? '?'} ${response.statusMessage ?? ''}`.trim();
  let hint = '';
  if (response.statusCode === 407) {
    hint =
      proxy.url.username === '' && proxy.url.password === ''
        ? ' (it wants credentials: http://USER:PASSWORD@proxy:port)'
        : ' (it did not take the credentials in the proxy URL)';
  }
  return `the proxy ${proxy.shown} refused the tunnel to ${target.hostname}:${port}: ${status}${hint}`;
}

function messageOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    const message = parsed.error?.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}
