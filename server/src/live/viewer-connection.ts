/**
 * One WebSocket watching one shell: what it has been sent (its position in the display
 * stream), and a bound on what may wait in its send buffer, for every message type. Past the
 * bound the viewer is `behind`: nothing more is queued for it, and once its buffer drains it
 * is resynced from a snapshot; one that does not drain within the stall limit is closed with
 * a reason. A stalled viewer therefore costs at most the bound in memory, and never slows
 * the shell, the agent or anyone else.
 */
import {
  encodeOutputFrame,
  LIVE_CLOSE,
  type ServerMessage,
  type Viewer,
} from '../../../shared/src/live.ts';

/** Send buffer past which a viewer stops being fed (VS Code pauses at ~100 K characters;
 *  output frames are raw bytes and a browser drains MBs quickly, so allow more). */
export const VIEWER_MAX_BUFFERED_BYTES = 2 * 1024 * 1024;
/** A behind viewer is resynced once its send buffer is down to this. */
export const VIEWER_RESUME_BUFFERED_BYTES = 64 * 1024;
/** Spacing of the looks at a behind viewer's send buffer. */
export const VIEWER_DRAIN_CHECK_MS = 50;
/** Largest output frame sent at once (catch-ups are cut to this). */
export const MAX_OUTPUT_FRAME_BYTES = 256 * 1024;
/** A behind viewer whose buffer has not drained for this long has stopped reading: it is
 *  closed (a browser on a slow link drains 2 MiB in well under this). */
export const VIEWER_STALL_CLOSE_MS = 30_000;
/** A closed viewer that does not answer the close handshake (it does not read) is cut then. */
const VIEWER_CLOSE_GRACE_MS = 1000;

export type ViewerMode = 'syncing' | 'live' | 'behind';

/**
 * What a viewer's connection needs of its socket: a `ws` WebSocket, or a viewer relayed over
 * a shell host's link (`host/relayed-socket.ts`), whose buffer is the link's.
 */
export interface ViewerSocket {
  readonly readyState: number;
  readonly OPEN: number;
  readonly bufferedAmount: number;
  send(data: string | Uint8Array, options?: { binary?: boolean }): void;
  close(code: number, reason: string): void;
  terminate(): void;
}

export class ViewerConnection {
  /** Display offset of the next byte this viewer needs. */
  position = 0;
  mode: ViewerMode = 'syncing';
  private drainTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /** `drained` is called when a viewer that fell behind can take a resync. */
  constructor(
    readonly viewer: Viewer,
    /** The token it connected with. */
    readonly tokenId: string,
    readonly canControl: boolean,
    private readonly socket: ViewerSocket,
    private readonly drained: () => void,
    /** The admin or the shell's owner (see JoinRequest.inCharge). */
    readonly inCharge = false,
    private readonly stallCloseMs = VIEWER_STALL_CLOSE_MS,
  ) {}

  get open(): boolean {
    return !this.closed && this.socket.readyState === this.socket.OPEN;
  }

  get buffered(): number {
    return this.socket.bufferedAmount;
  }

  /**
   * Sends a message unless the viewer is behind (it gets the state again on resync); like
   * output, every message counts toward the bound.
   */
  send(message: ServerMessage): void {
    if (this.mode === 'behind' || !this.open) return;
    this.socket.send(JSON.stringify(message));
    this.checkBehind();
  }

  /**
   * Sends display bytes that start at `offset`: the part this viewer has not had. `frame`,
   * when given, is the same bytes already encoded for everyone. Returns false when the bytes
   * do not continue what the viewer has (it needs a resync).
   */
  sendOutput(offset: number, data: Buffer, frame?: Uint8Array): boolean {
    if (this.mode !== 'live' || !this.open) return true;
    const end = offset + data.length;
    if (end <= this.position) return true;
    if (offset > this.position) return false;
    if (offset === this.position && frame) {
      this.socket.send(frame, { binary: true });
      this.position = end;
      this.checkBehind();
      return true;
    }
    // A catch-up or a trimmed frame: sent in pieces, and only while the buffer has room.
    while (this.position < end && !this.checkBehind()) {
      const pieceEnd = Math.min(end, this.position + MAX_OUTPUT_FRAME_BYTES);
      const piece = data.subarray(this.position - offset, pieceEnd - offset);
      this.socket.send(encodeOutputFrame(this.position, piece), { binary: true });
      this.position = pieceEnd;
    }
    return true;
  }

  /**
   * Past the bound the viewer is `behind`: nothing more is queued, and once its buffer
   * drains `drained` is called (to resync it). True while behind.
   */
  private checkBehind(): boolean {
    if (this.mode === 'behind') return true;
    if (this.buffered <= VIEWER_MAX_BUFFERED_BYTES) return false;
    this.mode = 'behind';
    const since = Date.now();
    this.drainTimer = setInterval(() => {
      if (!this.open) {
        clearInterval(this.drainTimer);
        return;
      }
      if (this.buffered > VIEWER_RESUME_BUFFERED_BYTES) {
        if (Date.now() - since < this.stallCloseMs) return;
        this.close(
          LIVE_CLOSE.tooSlow,
          `this viewer stopped reading: ${VIEWER_MAX_BUFFERED_BYTES} bytes waited unread for ${this.stallCloseMs} ms`,
        );
        return;
      }
      clearInterval(this.drainTimer);
      this.drained();
    }, VIEWER_DRAIN_CHECK_MS);
    return true;
  }

  /** Closes with a reason; a peer that does not answer (it stopped reading) is cut after a grace. */
  close(code: number, reason: string): void {
    this.dispose();
    closeWithReason(this.socket, code, reason);
  }

  dispose(): void {
    this.closed = true;
    clearInterval(this.drainTimer);
  }
}

/** Closes `socket` with a code and reason; cut after a grace if the peer never answers. */
export function closeWithReason(socket: ViewerSocket, code: number, reason: string): void {
  if (socket.readyState !== socket.OPEN) return;
  // ws throws on a code a peer may not be sent or a reason past 123 bytes: a relayed host's
  // words are cut to fit, never a throw.
  socket.close(sendableCloseCode(code) ? code : CLOSE_INTERNAL_ERROR, fittedReason(reason));
  setTimeout(() => socket.terminate(), VIEWER_CLOSE_GRACE_MS).unref();
}

/**
 * For sockets fed without a resync (a dashboard, a relayed viewer): past `bound` unsent bytes
 * the peer stopped reading, and is closed with the reason (it reconnects and starts over).
 * True when it was closed.
 */
export function closeIfStalled(socket: ViewerSocket, bound: number, what: string): boolean {
  if (socket.bufferedAmount <= bound) return false;
  closeWithReason(
    socket,
    LIVE_CLOSE.tooSlow,
    `this ${what} stopped reading: over ${bound} bytes waited unread`,
  );
  return true;
}

/** A WebSocket close reason is at most 123 bytes of UTF-8. */
const CLOSE_REASON_MAX_BYTES = 123;
const CLOSE_INTERNAL_ERROR = 1011;

/** Codes an endpoint may send (RFC 6455 7.4): 1000–1003, 1007–1014, and 3000–4999. */
function sendableCloseCode(code: number): boolean {
  if (!Number.isInteger(code)) return false;
  if (code >= 3000 && code <= 4999) return true;
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014);
}

function fittedReason(reason: string): string {
  if (Buffer.byteLength(reason) <= CLOSE_REASON_MAX_BYTES) return reason;
  const points = [...reason];
  while (Buffer.byteLength(points.join('')) > CLOSE_REASON_MAX_BYTES) points.pop();
  return points.join('');
}
