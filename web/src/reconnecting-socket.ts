/**
 * A WebSocket that comes back: after an unexpected close it reconnects with growing, jittered
 * pauses (so the dashboards dropped by one restart do not all come back at once),
 * asking the owner for the URL each time (the session page adds `?from=` its position).
 * Close codes that mean "do not come back" (the shell is gone, access revoked) end it.
 */
import { jitteredPauseMs } from '../../shared/src/backoff.ts';
import { LIVE_CLOSE } from '../../shared/src/live.ts';
import { appUrl } from './app-path.ts';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'closed';

/** Ceilings of the pauses between attempts; the last repeats. Short first: most drops are a blip. */
const RECONNECT_DELAYS_MS = [100, 500, 1000, 2000, 4000] as const;
/** After this many failed attempts in a row, the owner re-checks access (a logout looks the same). */
const FAILURES_BEFORE_ACCESS_CHECK = 3;
/** Policy violation: the server refused this connection for good (auth, origin). */
const CLOSE_POLICY = 1008;
/** The code the page uses when it drops the connection on purpose (tests). */
const CLOSE_DROPPED = 4000;

/** The WebSocket URL of `path` on the page's own server (`wss:` when the page is `https:`). */
export function socketUrl(path: string): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${appUrl(path)}`;
}

export interface SocketOwner {
  /** The URL for the next attempt (with a fresh ticket: see `ticketedSocketUrl`). */
  url(): string | Promise<string>;
  onText(text: string): void;
  onBinary(data: Uint8Array): void;
  /** `code` is the server's close code when it ended the connection for good. */
  onState(state: ConnectionState, detail: string, code?: number): void;
  /** Called after FAILURES_BEFORE_ACCESS_CHECK failed attempts in a row. */
  onRepeatedFailure?(): void;
}

export class ReconnectingSocket {
  private socket: WebSocket | null = null;
  private failures = 0;
  private wasLive = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  /** Counts attempts, so a URL that arrives after a newer attempt began is dropped. */
  private attempt = 0;

  constructor(private readonly owner: SocketOwner) {}

  start(): void {
    this.stopped = false;
    this.open();
  }

  /** Sends one JSON message; false when not connected (the caller tells the user). */
  send(message: object): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Closes the connection as a network failure would, and reconnects. For tests. */
  drop(): void {
    const socket = this.socket;
    if (socket === null) return;
    this.forget(socket);
    socket.close(CLOSE_DROPPED, 'dropped by the page');
    this.scheduleReconnect('connection dropped');
  }

  /** Reconnects now (the stream is inconsistent: resume from the position). */
  restart(reason: string): void {
    const socket = this.socket;
    if (socket !== null) {
      this.forget(socket);
      socket.close(1000, reason);
    }
    this.scheduleReconnect(reason, 0);
  }

  stop(detail = 'closed'): void {
    this.stopped = true;
    clearTimeout(this.timer);
    const socket = this.socket;
    if (socket !== null) {
      this.forget(socket);
      socket.close(1000, 'page closed');
    }
    this.owner.onState('closed', detail);
  }

  private open(): void {
    clearTimeout(this.timer);
    this.owner.onState(this.wasLive ? 'reconnecting' : 'connecting', 'connecting…');
    const attempt = ++this.attempt;
    Promise.resolve()
      .then(() => this.owner.url())
      .then(
        (url) => {
          if (attempt === this.attempt && !this.stopped) this.connect(url);
        },
        () => {
          // No ticket (signed out, server away): counts as a failed attempt.
          if (attempt !== this.attempt || this.stopped) return;
          this.failures += 1;
          if (this.failures >= FAILURES_BEFORE_ACCESS_CHECK) this.owner.onRepeatedFailure?.();
          this.scheduleReconnect('connection lost');
        },
      );
  }

  private connect(url: string): void {
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onmessage = (event: MessageEvent<string | ArrayBuffer>) => {
      if (typeof event.data === 'string') this.owner.onText(event.data);
      else this.owner.onBinary(new Uint8Array(event.data));
    };
    socket.onopen = () => {
      this.failures = 0;
      this.wasLive = true;
      this.owner.onState('live', 'live');
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.forget(socket);
      if (isFinal(event.code)) {
        this.stopped = true;
        this.owner.onState('closed', event.reason || closeReason(event.code), event.code);
        return;
      }
      this.failures += 1;
      if (this.failures >= FAILURES_BEFORE_ACCESS_CHECK) this.owner.onRepeatedFailure?.();
      this.scheduleReconnect('connection lost');
    };
  }

  private forget(socket: WebSocket): void {
    socket.onmessage = null;
    socket.onopen = null;
    socket.onclose = null;
    if (this.socket === socket) this.socket = null;
  }

  private scheduleReconnect(detail: string, delay?: number): void {
    if (this.stopped) return;
    const pause = delay ?? jitteredPauseMs(RECONNECT_DELAYS_MS, this.failures);
    this.owner.onState('reconnecting', detail);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), pause);
  }
}

function isFinal(code: number): boolean {
  return (
    code === LIVE_CLOSE.gone ||
    code === LIVE_CLOSE.revoked ||
    code === LIVE_CLOSE.disconnected ||
    code === LIVE_CLOSE.tooMany ||
    code === CLOSE_POLICY
  );
}

function closeReason(code: number): string {
  if (code === LIVE_CLOSE.gone) return 'this shell is gone';
  if (code === LIVE_CLOSE.revoked) return 'your access was revoked';
  if (code === LIVE_CLOSE.tooMany) return 'too many live connections: close another tab';
  return 'the server refused the connection';
}
