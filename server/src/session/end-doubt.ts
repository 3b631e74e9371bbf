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

/**
 * Runs a look at each of END_CONFIRM_MS after a call's end was believed: a forged end mark
 * printed just before its job took the terminal passed the check at the mark. One timer at a
 * time, and the next call's end starts the looks over (they look at the shell as it is now,
 * and the new series reaches further): a shell answering calls back to back keeps one timer,
 * where a series per call kept four, each with a read of /proc at its end.
 */
export class EndConfirm {
  private timer: NodeJS.Timeout | undefined;

  /** Starts the looks over with `look`. */
  start(look: () => void): void {
    this.stop();
    const after = (step: number, since: number): void => {
      const at = END_CONFIRM_MS[step];
      if (at === undefined) return;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        look();
        after(step + 1, at);
      }, at - since);
      this.timer.unref();
    };
    after(0, 0);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
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
