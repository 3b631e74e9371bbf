/**
 * How a link's messages reach its socket. Each written alone was a system call on one side
 * and a wake-up of the other, several times in the middle of every call: on the host a call's
 * story, its output, the shell's state and the answer; on the control plane the answer's
 * acknowledgement and the output's credit.
 *
 * - The writes of one turn of the event loop leave together: the first write of a turn corks
 *   the socket, which is uncorked once the turn's I/O callbacks and promise jobs have run.
 * - A message nobody waits for (an acknowledgement, the news that a call started) waits for
 *   the link's next write, and goes before it, or for `LATER_MS` at most: order is kept, and a
 *   short call's messages travel in one write instead of two or three.
 */
import type { Duplex } from 'node:stream';

/** The longest a message nobody waits for is held (ms). */
export const LATER_MS = 5;

export class TurnWrites {
  private held = false;
  private later: (() => void)[] = [];
  private laterTimer: NodeJS.Timeout | undefined;

  constructor(private readonly socket: Duplex) {}

  /** Call before each write: this turn's writes leave together, after those put off. */
  hold(): void {
    if (!this.held && !this.socket.destroyed) {
      this.held = true;
      this.socket.cork();
      setImmediate(() => {
        this.held = false;
        this.socket.uncork();
      });
    }
    if (this.later.length > 0) this.flushLater();
  }

  /** A write nobody waits for: it goes before the link's next write, or within LATER_MS. */
  putOff(write: () => void): void {
    this.later.push(write);
    if (this.laterTimer !== undefined) return;
    this.laterTimer = setTimeout(() => {
      this.laterTimer = undefined;
      this.hold();
    }, LATER_MS);
    this.laterTimer.unref();
  }

  private flushLater(): void {
    clearTimeout(this.laterTimer);
    this.laterTimer = undefined;
    const writes = this.later;
    this.later = [];
    for (const write of writes) write();
  }
}
