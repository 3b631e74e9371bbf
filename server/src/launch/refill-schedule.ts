/**
 * When a pool of spares (network-spares.ts, quota-keeper.ts) is filled again. After a failure
 * to make one: a while later, not in a loop. After a take: once the shell that took it has
 * answered its first call (settled), since making a spare at once competed, on a small machine,
 * with that very shell's start (each step of a sandbox's start took twice as long); at the
 * latest REFILL_AFTER_TAKE_MS after the take (a shell that never got so far).
 */

/** The longest a pool waits after a take for the shell that took it to settle. */
export const REFILL_AFTER_TAKE_MS = 2000;

export class RefillSchedule {
  private timer: NodeJS.Timeout | null = null;
  /** The timer waits for a shell to settle, not out a failure. */
  private forShell = false;
  private closed = false;

  constructor(private readonly fill: () => void) {}

  /** A fill is scheduled: the pool makes none before it. */
  get pending(): boolean {
    return this.timer !== null;
  }

  /** Fills `ms` from now, unless a fill is scheduled already. */
  later(ms: number): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.forShell = false;
      this.fill();
    }, ms);
    this.timer.unref();
  }

  /** A spare was taken: filled once a shell settles, or REFILL_AFTER_TAKE_MS from now. */
  afterTake(): void {
    if (this.timer !== null || this.closed) return;
    this.later(REFILL_AFTER_TAKE_MS);
    this.forShell = true;
  }

  /** A shell answered its first call: a fill waiting for that happens now. */
  shellSettled(): void {
    if (!this.forShell || this.timer === null) return;
    this.clear();
    this.fill();
  }

  close(): void {
    this.closed = true;
    this.clear();
  }

  private clear(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.forShell = false;
  }
}
