/**
 * One shell's live stream: its display output coalesced into frames (a few ms or tens of
 * KiB), the recent output kept for resumes, the viewers with their presence, and the
 * control messages they send. It only subscribes to the shell's events and calls its
 * control methods; the shell never knows who watches beyond a count.
 */
import type { WebSocket } from 'ws';
import {
  type ClientMessage,
  encodeOutputFrame,
  LIVE_CLOSE,
  LIVE_PROTOCOL_VERSION,
  OUTPUT_HEADER_BYTES,
  type ServerMessage,
  type Viewer,
} from '../../../shared/src/live.ts';
import { JumpseatError } from '../errors.ts';
import { DisposableStore } from '../pty/disposable.ts';
import type { Shell } from '../session/shell.ts';
import { OutputRing } from './output-ring.ts';
import { ViewerConnection } from './viewer-connection.ts';

/** Output is gathered this long before a frame goes out (STYLE.md: about 5 ms)… */
export const COALESCE_MS = 4;
/** …or until this much is gathered. */
export const COALESCE_MAX_BYTES = 64 * 1024;
/** Output kept per watched shell for resumes after a reconnect. */
export const RETAINED_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Session-info changes are sent at most this often (a fast agent changes state per call). */
const SESSION_UPDATE_MS = 16;

/** Counters the operations side (metrics) takes from the live stream; the number of viewers
 *  it reads from each shell's `info()`. */
export interface LiveObserver {
  bytesStreamed(bytes: number): void;
  viewerResynced(): void;
}

export interface JoinRequest {
  readonly viewer: Viewer;
  readonly canControl: boolean;
  /** Display offset the client already has everything before (a reconnect). */
  readonly from?: number;
}

export class ShellChannel {
  private readonly viewers = new Set<ViewerConnection>();
  private readonly ring = new OutputRing(RETAINED_OUTPUT_BYTES);
  private readonly disposables = new DisposableStore();
  private pending: Buffer[] = [];
  private pendingStart = 0;
  private pendingBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private sessionTimer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    readonly shell: Shell,
    private readonly observer?: LiveObserver,
  ) {
    this.pendingStart = shell.displayOffset;
    this.disposables.add(shell.onDisplay.on((chunk) => this.onOutput(chunk.offset, chunk.data)));
    this.disposables.add(shell.onChange.on(() => this.scheduleSessionUpdate()));
    this.disposables.add(
      shell.onCallStarted.on((call) => this.broadcast({ type: 'call_started', ...call })),
    );
    this.disposables.add(
      shell.onCallFinished.on((call) => this.broadcast({ type: 'call_finished', call })),
    );
    this.disposables.add(
      shell.human.onControl.on((controller) => {
        this.broadcast({ type: 'control', controller });
      }),
    );
    this.disposables.add(
      shell.onResize.on(({ cols, rows }) => {
        // Bytes before the resize were produced at the old size: they go out first.
        this.flush();
        this.broadcast({ type: 'resize', cols, rows });
      }),
    );
  }

  get viewerCount(): number {
    return this.viewers.size;
  }

  /** Adds a viewer: hello, then a snapshot or the resumed output, then the live stream. */
  async join(socket: WebSocket, request: JoinRequest): Promise<ViewerConnection> {
    const connection: ViewerConnection = new ViewerConnection(
      request.viewer,
      request.canControl,
      socket,
      () => {
        if (!this.viewers.has(connection)) return;
        this.observer?.viewerResynced();
        void this.resync(connection, 'resync');
      },
    );
    this.viewers.add(connection);
    this.shell.viewers = this.viewers.size;
    connection.send({
      type: 'hello',
      protocol: LIVE_PROTOCOL_VERSION,
      you: request.viewer,
      canControl: request.canControl,
      session: this.shell.info(),
    });
    this.sendControl(connection);
    this.broadcastPresence();
    this.flush();
    if (request.from !== undefined && this.ring.holds(request.from)) {
      connection.send({ type: 'resumed', offset: request.from });
      connection.position = request.from;
      connection.mode = 'live';
      this.catchUp(connection);
    } else {
      await this.resync(connection, request.from === undefined ? 'join' : 'expired');
    }
    return connection;
  }

  /** Removes a viewer; if it held the controls, the shell goes back to its agent. */
  leave(connection: ViewerConnection): void {
    if (!this.viewers.delete(connection)) return;
    connection.dispose();
    if (!this.disposed) this.shell.viewers = this.viewers.size;
    void this.shell.human.release(connection.viewer.id); // a no-op unless it held them
    this.broadcastPresence();
  }

  /** Acts on one validated client message; refusals go back to that viewer as errors. */
  async handle(connection: ViewerConnection, message: ClientMessage): Promise<void> {
    if (!connection.canControl) {
      connection.send(
        errorMessage('FORBIDDEN', `role "${connection.viewer.role}" may only watch this shell`),
      );
      return;
    }
    const id = connection.viewer.id;
    try {
      switch (message.type) {
        case 'take_control':
          await this.shell.human.take(connection.viewer);
          break;
        case 'release_control':
          await this.shell.human.release(id);
          break;
        case 'input':
          this.shell.human.input(id, message.data);
          break;
        case 'resize':
          this.shell.human.resize(id, message.cols, message.rows);
          break;
        case 'interrupt':
          if (!(await this.shell.human.interrupt(connection.viewer))) {
            connection.send(errorMessage('NOTHING_TO_INTERRUPT', 'the shell is not running'));
          }
          break;
      }
    } catch (error) {
      if (error instanceof JumpseatError) connection.send(errorMessage(error.code, error.message));
      else throw error;
    }
  }

  /** The shell is gone from the server: every viewer is told and disconnected. */
  dispose(): void {
    if (this.disposed) return;
    this.flush();
    this.disposed = true;
    clearTimeout(this.flushTimer);
    clearTimeout(this.sessionTimer);
    this.disposables.dispose();
    for (const connection of this.viewers)
      connection.close(LIVE_CLOSE.gone, 'the shell is no longer listed');
    this.viewers.clear();
  }

  private onOutput(offset: number, data: Buffer): void {
    if (this.pendingBytes === 0) this.pendingStart = offset;
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes >= COALESCE_MAX_BYTES) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), COALESCE_MS);
  }

  /** Sends what has gathered as one frame, encoded once for every live viewer. */
  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pendingBytes === 0 || this.disposed) return;
    const offset = this.pendingStart;
    // The gathered chunks are copied once, into the frame every viewer gets; the bytes kept
    // for resumes are that same memory.
    const frame = encodeOutputFrame(offset, this.pending);
    const data = Buffer.from(
      frame.buffer,
      frame.byteOffset + OUTPUT_HEADER_BYTES,
      this.pendingBytes,
    );
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingStart = offset + data.length;
    this.ring.push(offset, data);
    for (const connection of this.viewers) {
      if (connection.mode !== 'live') continue;
      const before = connection.position;
      if (!connection.sendOutput(offset, data, frame)) void this.resync(connection, 'resync');
      else this.observer?.bytesStreamed(connection.position - before);
    }
  }

  /** Output from the viewer's position to what was last flushed, from the ring. */
  private catchUp(connection: ViewerConnection): void {
    const missing = this.ring.from(connection.position);
    if (missing === null) {
      if (connection.position > this.ring.end) return; // the snapshot is ahead: nothing missed
      void this.resync(connection, 'resync');
      return;
    }
    const before = connection.position;
    connection.sendOutput(connection.position, missing);
    this.observer?.bytesStreamed(connection.position - before);
  }

  /** A fresh snapshot, the state around it, then the output that followed it. */
  private async resync(
    connection: ViewerConnection,
    reason: 'join' | 'resync' | 'expired',
  ): Promise<void> {
    connection.mode = 'syncing';
    const snapshot = await this.shell.snapshot();
    if (!this.viewers.has(connection)) return;
    connection.mode = 'live';
    if (reason !== 'join') {
      connection.send({ type: 'session', session: this.shell.info() });
      this.sendControl(connection);
      connection.send({ type: 'presence', viewers: this.presence() });
    }
    connection.send({ type: 'snapshot', reason, ...snapshot });
    connection.position = snapshot.offset;
    this.catchUp(connection);
  }

  private sendControl(connection: ViewerConnection): void {
    const controller = this.shell.human.controller;
    connection.send({ type: 'control', controller });
  }

  private scheduleSessionUpdate(): void {
    this.sessionTimer ??= setTimeout(() => {
      this.sessionTimer = undefined;
      if (!this.disposed) this.broadcast({ type: 'session', session: this.shell.info() });
    }, SESSION_UPDATE_MS);
  }

  private presence(): Viewer[] {
    return [...this.viewers].map((connection) => connection.viewer);
  }

  private broadcastPresence(): void {
    this.broadcast({ type: 'presence', viewers: this.presence() });
  }

  private broadcast(message: ServerMessage): void {
    if (this.disposed) return;
    // Events follow the output that came before them.
    if (message.type !== 'presence') this.flush();
    for (const connection of this.viewers) connection.send(message);
  }
}

function errorMessage(code: string, message: string): ServerMessage {
  return { type: 'error', code, message };
}
