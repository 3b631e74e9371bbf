/**
 * An end mark parsed while a job holds the shell's terminal (issue 21.6 and 22.2). It was
 * printed either by the command, its job still running (a forged end), or by the shell
 * itself, a job started after it (by `PROMPT_COMMAND`, say) holding the terminal by the time
 * a busy server read the mark. Only the shell seen holding its terminal again tells them
 * apart: then the mark was the real end, unless another end mark of the same call came
 * first (the one the shell prints when the command really ends). Meanwhile the call's output
 * is set aside (see CallRun.holdOutput), and the call runs on.
 */
/** Spacing of the looks at who holds the terminal while an end mark is in doubt. */
const DOUBT_LOOK_MS = 20;
/**
 * When an ended call's shell is looked at again for a job holding its terminal: soon, and
 * again up to a few seconds on, since a job's fork and exec can take that long on a loaded
 * machine (two cores at a load of 20 missed it at 300 ms).
 */
const END_CONFIRM_MS = [30, 300, 1000, 2500];
/** Timers run on the event loop's millisecond clock: one may come due this much early. */
const TIMER_SLACK_MS = 1;

/**
 * Runs `look` at each of END_CONFIRM_MS after a call's end was believed: a forged end mark
 * printed just before its job took the terminal passed the check at the mark. One series per
 * shell, one timer: a new end starts the series again from that end, so the looks always
 * reach END_CONFIRM_MS's last step past the latest end (a look is about the shell now, not
 * about one call). Four timers per call cost more than the call's own work: a shell answering
 * calls back to back kept thousands armed; now a timer that comes due early for the latest end
 * is simply aimed again.
 */
export class LookAgain {
  /** The steps, from the end, of the looks (exported for tests). */
  static readonly STEPS_MS: readonly number[] = END_CONFIRM_MS;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer comes due (ms, performance.now()). */
  private dueAt = 0;
  /** The latest end, and the step of END_CONFIRM_MS its next look is at. */
  private endedAt = 0;
  private step = END_CONFIRM_MS.length;

  constructor(private readonly look: () => void) {}

  /** A call's end was believed: looks at each of END_CONFIRM_MS from now. */
  afterEnd(): void {
    const now = performance.now();
    this.endedAt = now;
    this.step = 0;
    const due = now + (END_CONFIRM_MS[0] as number);
    // A timer that comes due first stays: it aims itself at this end's first look.
    if (this.timer === undefined || this.dueAt > due) this.arm(due, now);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.step = END_CONFIRM_MS.length;
  }

  private arm(due: number, now: number): void {
    clearTimeout(this.timer);
    this.dueAt = due;
    this.timer = setTimeout(this.due, Math.max(0, due - now));
    this.timer.unref();
  }

  private readonly due = (): void => {
    this.timer = undefined;
    const now = performance.now() + TIMER_SLACK_MS;
    const stepAt = (step: number): number => this.endedAt + (END_CONFIRM_MS[step] as number);
    if (this.step < END_CONFIRM_MS.length && stepAt(this.step) <= now) {
      // Steps a blocked event loop overran are one look, not several in a row.
      while (this.step < END_CONFIRM_MS.length && stepAt(this.step) <= now) this.step++;
      this.look();
    }
    if (this.step < END_CONFIRM_MS.length) this.arm(stepAt(this.step), now);
  };
}

export class EndDoubt {
  private statusValue: number | null = null;
  private look: NodeJS.Timeout | undefined;

  constructor(
    /** A job, not the shell itself, holds the shell's terminal now. */
    private readonly jobHolds: () => boolean,
    /** The doubted end was real: the shell holds its terminal again. */
    private readonly believed: (status: number) => void,
  ) {}

  /** An end mark is in doubt. */
  get pending(): boolean {
    return this.statusValue !== null;
  }

  /** Doubts the end mark with `status` (a later one replaces an earlier one). */
  doubt(status: number): void {
    this.statusValue = status;
    if (this.look !== undefined) return;
    // Twice in a row: when the command's job ends, the shell's own end mark follows at once,
    // and should come before the doubted one is believed.
    let sightings = 0;
    const check = (): void => {
      this.look = undefined;
      const status = this.statusValue;
      if (status === null) return;
      sightings = this.jobHolds() ? 0 : sightings + 1;
      if (sightings < 2) {
        this.look = setTimeout(check, DOUBT_LOOK_MS);
        return;
      }
      this.clear();
      this.believed(status);
    };
    this.look = setTimeout(check, DOUBT_LOOK_MS);
  }

  /** The call ended otherwise (or the shell did): nothing is in doubt any more. */
  clear(): void {
    this.statusValue = null;
    clearTimeout(this.look);
    this.look = undefined;
  }
}
