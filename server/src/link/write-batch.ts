/**
 * What a link sends in one turn of the event loop goes to the kernel in one write: the socket
 * under the WebSocket is corked at the turn's first message and uncorked once the turn's
 * callbacks and promise continuations have run (setImmediate, before the loop waits again).
 * A host answers a call with several messages made in one turn (the shell's last output, its
 * state, its story, the result); sent one write each, every one woke the control plane on its
 * own.
 */
import type { Duplex } from 'node:stream';

export class WriteBatch {
  #raw: Duplex | undefined;
  #corked = false;

  /** The socket of the link's new connection (the last one's batch still ends by itself). */
  attach(raw: Duplex): void {
    this.#raw = raw;
    this.#corked = false;
  }

  /** Called before each send: holds this turn's writes until it ends. */
  hold(): void {
    const raw = this.#raw;
    if (raw === undefined || this.#corked || raw.destroyed) return;
    this.#corked = true;
    raw.cork();
    setImmediate(() => {
      if (this.#raw === raw) this.#corked = false;
      raw.uncork();
    });
  }
}
