/**
 * A call line that ran without starting its call: a command removed part of the integration
 * (unset its function, say), so the line ran and failed. Seen as the shell back at reading
 * its terminal with the call still unstarted. If the command file is still unread, the
 * command did not run: the integration is installed again and the line retyped, once.
 * Otherwise (it ran, its marks were lost) or on a second failure, the shell is broken.
 */
import type { ProcStat } from '../pty/proc-probe.ts';
import { ReadingWatch } from './reading-watch.ts';

/** Spacing of the looks at a shell whose call line may have run without starting. */
const CALL_LINE_CHECK_MS = 20;
/** Re-installations of the integration tried for one call before the shell is reset. */
const MAX_REPAIRS = 1;

/** What a repair needs from the shell's call line. */
export interface CallLineRepairHost {
  /** The shell process's stat now; null once it is gone. */
  stat(): ProcStat | null;
  /** The terminal's device path ('' before the shell is located). */
  ttyPath(): string;
  /** The integration has not marked the command file taken yet. */
  commandUnread(): boolean;
  /** Types the install line and the call line again (the prompt is due again). */
  retype(): void;
  /** The call cannot start in this shell: only a new shell can run it. */
  broken(): void;
}

export class CallLineRepair {
  /** Times the integration was re-installed for the call being started. */
  private repairs = 0;
  private readonly watch: ReadingWatch;

  constructor(private readonly host: CallLineRepairHost) {
    this.watch = new ReadingWatch(
      () => host.stat(),
      () => host.ttyPath(),
      CALL_LINE_CHECK_MS,
    );
  }

  /** Looks, while `unstarted()` holds, for the shell reading its terminal (then repairs). */
  check(unstarted: () => boolean): void {
    this.watch.start(unstarted, () => this.failed());
  }

  /** The call started: a later call may be repaired again. */
  started(): void {
    this.repairs = 0;
  }

  stop(): void {
    this.watch.stop();
  }

  private failed(): void {
    if (this.host.commandUnread() && this.repairs < MAX_REPAIRS) {
      this.repairs++;
      this.host.retype();
      return;
    }
    this.host.broken();
  }
}
