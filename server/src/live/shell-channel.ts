/**
 * One shell's live stream: its display output coalesced into frames (a few ms or tens of
 * KiB), the recent output kept for resumes, the viewers with their presence, and the
 * control messages they send. It only subscribes to the shell's events and calls its
 * control methods; the shell never knows who watches beyond a count.
 */
import {
  type ClientMessage,
  encodeOutputFrame,
  LIVE_CLOSE,
  LIVE_PROTOCOL_VERSION,
  OUTPUT_HEADER_BYTES,
  type ServerMessage,
  type Viewer,
} from '../../../shared/src/live.ts';
import { DEFAULT_CONTROL_IDLE_MS } from '../config/config.ts';
import { JumpseatError } from '../errors.ts';
import { DisposableStore } from '../pty/disposable.ts';
import type { Shell } from '../session/shell.ts';
import { ControlIdleWatch } from './control-idle.ts';
import { OutputRing } from './output-ring.ts';
import { ViewerConnection, type ViewerSocket } from './viewer-connection.ts';

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
  /** The token the viewer connected with (revoking it disconnects the viewer). */
  readonly tokenId: string;
  readonly canControl: boolean;
  /**
   * The admin, or the owner of a person's own shell: takes the controls from whoever holds
   * them, and may disconnect link holders.
   */
  readonly inCharge?: boolean;
  /** The shell's owner joining their own shell: the controls are theirs if nobody holds them. */
  readonly takeControl?: boolean;
  /** Display offset the client already has everything before (a reconnect). */
  readonly from?: number;
}

export interface ChannelSettings {
  /** A controller who types nothing this long hands an agent's shell back (ms). */
  readonly controlIdleMs: number;
  /** Keys waiting for the shell past which the controller's next keys are dropped (bytes). */
  readonly inputPendingMaxBytes?: number;
  /** A viewer behind its buffer bound this long is closed (ms; VIEWER_STALL_CLOSE_MS). */
  readonly stallCloseMs?: number;
}

export class ShellChannel {
  private readonly viewers = new Set<ViewerConnection>();
  private readonly idle: ControlIdleWatch;
  /** Viewers who asked the controller for the keyboard, by viewer id. */
  private readonly requests = new Map<string, ViewerConnection>();
  private readonly ring = new OutputRing(RETAINED_OUTPUT_BYTES);
  private readonly disposables = new DisposableStore();
  private pending: Buffer[] = [];
  private pendingStart = 0;
  private pendingBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private sessionTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** The controller was told its keys are being dropped; told again after keys go through. */
  private toldDropped = false;

  constructor(
    readonly shell: Shell,
    private readonly observer?: LiveObserver,
    private readonly settings: ChannelSettings = { controlIdleMs: DEFAULT_CONTROL_IDLE_MS },
  ) {
    this.pendingStart = shell.displayOffset;
    this.idle = new ControlIdleWatch(settings.controlIdleMs, {
      warn: (controller, inMs) =>
        this.broadcast({ type: 'control_idle', controller, releaseInMs: inMs }),
      expire: (controller) => void this.shell.human.release(controller.id, 'idle'),
    });
    this.idle.held(shell.human.controller, shell.agent !== null);
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
        const { takenFrom, reason } = shell.human.changeCause;
        this.idle.held(controller, shell.agent !== null);
        this.toldDropped = false; // a new controller is told of their own dropped keys
        this.broadcast({
          type: 'control',
          controller,
          ...(takenFrom === undefined ? {} : { takenFrom }),
          ...(reason === undefined ? {} : { reason }),
        });
        // Nobody holds the controls any more: asking is moot, anyone may take them.
        if (controller === null) this.closeRequests('withdrawn');
      }),
    );
    this.disposables.add(
      shell.human.secrets.onQuestion.on(({ by, open }) => {
        for (const viewer of this.viewers) {
          if (viewer.viewer.id === by.id) viewer.send({ type: 'secret_warning', open });
        }
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
  async join(socket: ViewerSocket, request: JoinRequest): Promise<ViewerConnection> {
    const connection: ViewerConnection = new ViewerConnection(
      request.viewer,
      request.tokenId,
      request.canControl,
      socket,
      () => {
        if (!this.viewers.has(connection)) return;
        this.observer?.viewerResynced();
        void this.resync(connection, 'resync');
      },
      request.inCharge === true,
      this.settings.stallCloseMs,
    );
    this.viewers.add(connection);
    this.shell.viewers = this.viewers.size;
    connection.send({
      type: 'hello',
      protocol: LIVE_PROTOCOL_VERSION,
      you: request.viewer,
      canControl: request.canControl,
      inCharge: request.inCharge === true,
      session: this.shell.info(),
    });
    this.sendControl(connection);
    // Everyone once to the joiner; the others hear of this one only (not the whole list).
    connection.send({ type: 'presence', viewers: this.presence() });
    this.broadcast({ type: 'viewer_joined', viewer: request.viewer }, connection);
    this.flush();
    if (request.from !== undefined && this.ring.holds(request.from)) {
      connection.send({ type: 'resumed', offset: request.from });
      connection.position = request.from;
      connection.mode = 'live';
      this.catchUp(connection);
    } else {
      await this.resync(connection, request.from === undefined ? 'join' : 'expired');
    }
    if (request.takeControl && request.canControl && this.shell.human.controller === null) {
      await this.handle(connection, { type: 'take_control' });
    }
    return connection;
  }

  /** Disconnects every viewer that joined with this token (it was revoked or expired). */
  disconnectToken(tokenId: string, reason: string): void {
    for (const connection of this.viewers) {
      if (connection.tokenId !== tokenId) continue;
      connection.close(LIVE_CLOSE.revoked, reason);
      this.leave(connection);
    }
  }

  /** Removes a viewer; if it held the controls, the shell goes back to its agent. */
  leave(connection: ViewerConnection): void {
    if (!this.viewers.delete(connection)) return;
    connection.dispose();
    if (!this.disposed) this.shell.viewers = this.viewers.size;
    void this.shell.human.release(connection.viewer.id); // a no-op unless it held them
    if (this.requests.delete(connection.viewer.id)) {
      this.broadcast({
        type: 'control_request_closed',
        from: connection.viewer.id,
        outcome: 'withdrawn',
      });
    }
    this.broadcast({ type: 'viewer_left', id: connection.viewer.id });
  }

  /** Acts on one validated client message; refusals go back to that viewer as errors. */
  async handle(connection: ViewerConnection, message: ClientMessage): Promise<void> {
    if (message.type === 'disconnect_viewer') {
      this.disconnectViewer(connection, message.viewer);
      return;
    }
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
          if (connection.inCharge) await this.shell.human.seize(connection.viewer);
          else await this.shell.human.take(connection.viewer);
          break;
        case 'release_control':
          await this.shell.human.release(id);
          break;
        case 'input':
          await this.input(connection, message.data);
          break;
        case 'resize':
          this.shell.human.resize(id, message.cols, message.rows);
          break;
        case 'interrupt':
          if (!(await this.shell.human.interrupt(connection.viewer))) {
            connection.send(errorMessage('NOTHING_TO_INTERRUPT', 'the shell is not running'));
          }
          break;
        case 'request_control':
          await this.requestControl(connection);
          break;
        case 'grant_control':
          this.answerRequest(connection, message.to, 'granted');
          break;
        case 'decline_control':
          this.answerRequest(connection, message.to, 'declined');
          break;
        case 'secret_answer':
          this.shell.human.secrets.answer(id, message.send);
          break;
      }
    } catch (error) {
      if (error instanceof JumpseatError) connection.send(errorMessage(error.code, error.message));
      else throw error;
    }
  }

  /**
   * The controller's keys: dropped past the pending bound (the controller is told once per
   * run of drops), written otherwise. Ctrl-C always goes, first (see HumanControl.input).
   */
  private async input(connection: ViewerConnection, data: string): Promise<void> {
    const typed = this.shell.human.input(
      connection.viewer.id,
      data,
      this.settings.inputPendingMaxBytes,
    );
    this.idle.typed();
    if (typed.dropped === null) {
      this.toldDropped = false;
      await typed.written;
      return;
    }
    if (this.toldDropped) return;
    this.toldDropped = true;
    connection.send({ type: 'input_dropped', ...typed.dropped });
  }

  /**
   * The owner (or the admin) ends a link holder's connection without revoking the link:
   * they are told who did it, and may come back by reloading.
   */
  private disconnectViewer(connection: ViewerConnection, viewerId: string): void {
    if (!connection.inCharge) {
      connection.send(
        errorMessage(
          'FORBIDDEN',
          "only the shell's owner or the admin may disconnect someone from this shell",
        ),
      );
      return;
    }
    const target = [...this.viewers].find((viewer) => viewer.viewer.id === viewerId);
    if (target === undefined || target.viewer.link !== true) {
      connection.send(
        errorMessage('NO_VIEWER', `no link holder ${JSON.stringify(viewerId)} watches this shell`),
      );
      return;
    }
    target.close(LIVE_CLOSE.disconnected, `${connection.viewer.name} disconnected you`);
    this.leave(target);
  }

  /** Takes the free controls, or asks their holder (everyone sees the request). */
  private async requestControl(connection: ViewerConnection): Promise<void> {
    const holder = this.shell.human.controller;
    if (holder === null) {
      await this.shell.human.take(connection.viewer);
      return;
    }
    if (holder.id === connection.viewer.id || this.requests.has(connection.viewer.id)) return;
    this.requests.set(connection.viewer.id, connection);
    this.broadcast({ type: 'control_requested', from: connection.viewer });
  }

  /** The controller grants (the keyboard passes straight over) or declines a request. */
  private answerRequest(
    connection: ViewerConnection,
    to: string,
    outcome: 'granted' | 'declined',
  ): void {
    if (this.shell.human.controller?.id !== connection.viewer.id) {
      connection.send(errorMessage('CONTROLLED', 'only the viewer at the controls can answer'));
      return;
    }
    const asker = this.requests.get(to);
    if (asker === undefined) {
      connection.send(errorMessage('NO_REQUEST', `viewer ${JSON.stringify(to)} is not asking`));
      return;
    }
    this.requests.delete(to);
    if (outcome === 'granted') this.shell.human.pass(connection.viewer.id, asker.viewer);
    this.broadcast({ type: 'control_request_closed', from: to, outcome });
  }

  private closeRequests(outcome: 'withdrawn'): void {
    for (const id of [...this.requests.keys()]) {
      this.requests.delete(id);
      this.broadcast({ type: 'control_request_closed', from: id, outcome });
    }
  }

  /** The shell is gone from the server: every viewer is told and disconnected. */
  dispose(): void {
    if (this.disposed) return;
    this.flush();
    this.disposed = true;
    this.idle.dispose();
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

  /** To every viewer (but `except`); events follow the output that came before them. */
  private broadcast(message: ServerMessage, except?: ViewerConnection): void {
    if (this.disposed) return;
    if (!PRESENCE_TYPES.has(message.type)) this.flush();
    for (const connection of this.viewers) {
      if (connection !== except) connection.send(message);
    }
  }
}

/** Who watches is not part of the display stream: no flush before it. */
const PRESENCE_TYPES: ReadonlySet<ServerMessage['type']> = new Set([
  'presence',
  'viewer_joined',
  'viewer_left',
]);

function errorMessage(code: string, message: string): ServerMessage {
  return { type: 'error', code, message };
}
