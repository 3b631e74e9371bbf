/**
 * Watching one shell live from Node: the live protocol of `shared/src/live.ts` over `ws`,
 * with every frame validated, output delivered once and in order (bytes a resume repeats are
 * trimmed), and reconnection from the last offset after a dropped connection.
 */
import WebSocket from 'ws';
import { jitteredPauseMs } from '../../shared/src/backoff.ts';
import {
  type ClientMessage,
  decodeOutputFrame,
  LIVE_CLOSE,
  parseServerMessage,
  type ServerMessage,
} from '../../shared/src/live.ts';
import { OutputCursor } from '../../shared/src/output-cursor.ts';

/** Output as it reaches a watcher: the display bytes from `offset` on. */
export interface OutputEvent {
  readonly type: 'output';
  readonly offset: number;
  readonly data: Uint8Array;
}

/** The connection's own state, for a status line. */
export interface ConnectionEvent {
  readonly type: 'connection';
  readonly state: 'open' | 'reconnecting' | 'closed';
}

export type LiveEvent = ServerMessage | OutputEvent | ConnectionEvent;

export interface WatchOptions {
  /** Start from this display offset (a snapshot comes instead if it is no longer kept). */
  readonly from?: number;
  /** Reconnect after a dropped connection, from the last offset received (default true). */
  readonly reconnect?: boolean;
}

/**
 * Ceilings of the reconnection pauses, doubling per failed attempt up to the last (which
 * repeats); each pause is jittered under its ceiling, so the watchers dropped by one restart
 * do not all come back in the same instant.
 */
const RECONNECT_CEILINGS_MS = [250, 500, 1000, 2000, 4000, 5000] as const;
const NORMAL_CLOSURE = 1000;
/** Closed by the client itself to resume after missing bytes (4000–4999: application's). */
const OUTPUT_GAP = 4000;

export class LiveWatch {
  readonly closed: Promise<void>;
  private readonly cursor = new OutputCursor();
  private socket: WebSocket | null = null;
  private stopped = false;
  /** Failed attempts in a row since the last open connection. */
  private failures = 0;
  private finished = false;
  private markClosed!: () => void;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly onEvent: (event: LiveEvent) => void,
    private readonly options: WatchOptions,
  ) {
    this.closed = new Promise((resolve) => {
      this.markClosed = resolve;
    });
    if (options.from !== undefined) this.cursor.moveTo(options.from);
  }

  /** Display offset just past the last output byte delivered; null before the first. */
  get position(): number | null {
    return this.cursor.position;
  }

  /** Connects; resolves once the first connection is open, rejects if it is refused. */
  open(): Promise<void> {
    return new Promise((resolve, reject) => this.connect(resolve, reject));
  }

  /** Sends a control message (`take_control`, `input`, …); refusals come back as `error`. */
  send(message: ClientMessage): void {
    if (this.socket?.readyState !== WebSocket.OPEN) throw new Error('not connected');
    this.socket.send(JSON.stringify(message));
  }

  /** Stops watching for good. */
  close(): void {
    this.stopped = true;
    this.socket?.close(NORMAL_CLOSURE);
    if (!this.socket) this.finish();
  }

  private connect(opened?: () => void, refused?: (error: Error) => void): void {
    const query = this.cursor.position === null ? '' : `?from=${this.cursor.position}`;
    const socket = new WebSocket(`${this.url}${query}`, {
      headers: { authorization: `Bearer ${this.token}` },
    });
    this.socket = socket;
    // The first connection failing rejects `open()`: the caller gets no watch to close, so
    // nothing may go on reconnecting behind its back.
    const giveUp = (error: Error): void => {
      this.stopped = true;
      this.finish();
      refused?.(error);
    };
    socket.on('unexpected-response', (request, response) => {
      request.destroy();
      const error = new Error(`the server refused to stream: HTTP ${response.statusCode}`);
      if (refused) giveUp(error);
      else this.retry();
    });
    socket.on('open', () => {
      this.failures = 0;
      this.onEvent({ type: 'connection', state: 'open' });
      opened?.();
    });
    socket.on('message', (data: Buffer, isBinary) => this.onFrame(data, isBinary));
    socket.on('error', (error) => {
      if (refused && socket.readyState !== WebSocket.OPEN) giveUp(error);
    });
    socket.on('close', (code) => {
      if (this.socket !== socket) return;
      this.socket = null;
      const final =
        this.stopped ||
        this.options.reconnect === false ||
        code === NORMAL_CLOSURE ||
        code === LIVE_CLOSE.gone ||
        code === LIVE_CLOSE.revoked;
      if (final) this.finish();
      else this.retry();
    });
  }

  private retry(): void {
    if (this.stopped) return;
    this.onEvent({ type: 'connection', state: 'reconnecting' });
    const delay = jitteredPauseMs(RECONNECT_CEILINGS_MS, this.failures);
    this.failures += 1;
    setTimeout(() => {
      if (!this.stopped) this.connect();
    }, delay);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.onEvent({ type: 'connection', state: 'closed' });
    this.markClosed();
  }

  private onFrame(data: Buffer, isBinary: boolean): void {
    if (isBinary) {
      const frame = decodeOutputFrame(new Uint8Array(data));
      if (!frame) return;
      const from = this.cursor.position ?? 0;
      const verdict = this.cursor.accept(frame);
      if (verdict.kind === 'write')
        this.onEvent({ type: 'output', offset: from, data: verdict.data });
      // Bytes are missing: start over from what was delivered (the close code asks for a retry).
      else if (verdict.kind === 'gap') this.socket?.close(OUTPUT_GAP, 'output gap: resuming');
      return;
    }
    const parsed = parseServerMessage(data.toString('utf8'));
    if (!parsed.ok) return;
    const message = parsed.message;
    if (message.type === 'snapshot' || message.type === 'resumed')
      this.cursor.moveTo(message.offset);
    this.onEvent(message);
  }
}
