/**
 * The integration installed again in a fresh shell that a call's command exec'd (`exec bash`,
 * see ShellImage). What installing prints is set aside; the integration's first prompt ends
 * the call: the command did what it was asked (status 0), and the agent's next call runs in
 * the new shell as in the old. The fresh shell's own prompt, which the integration measured
 * (its `W` mark), is taken off the end of the call's output: the output stays whole.
 */
import type { CallRun } from './call-run.ts';

/** Erases from the cursor to the line's end. */
const ERASE_TO_END = '\x1b[K';

export class FreshShellInstall {
  /** The install line was typed; its prompt has not come yet. */
  private pending = false;
  /** The fresh shell's prompt's last line, in columns (null: not measured). */
  private promptWidth: number | null = null;

  /** Types `installLine` to the fresh shell (the shell process `pid`) for the call `run`. */
  begin(run: CallRun, pid: number, installLine: string, write: (line: string) => void): void {
    run.holdOutput();
    this.pending = true;
    this.promptWidth = null;
    // Not seen waiting again before the shell has read the line (see CallRun.typedTo).
    run.typedTo(pid);
    write(installLine);
  }

  /** The integration measured the prompt the fresh shell showed (its `W` mark's data). */
  measured(data: string): void {
    if (this.pending && /^\d{1,5}$/.test(data)) this.promptWidth = Number(data);
  }

  /**
   * A prompt mark came (it carries the shell's nonce, which only the integration knows):
   * whether it is the installation's, the call's end. What installing printed is dropped.
   */
  prompted(run: CallRun | null): boolean {
    if (!this.pending || run === null) return false;
    this.pending = false;
    run.dropHeldOutput();
    // Back over the prompt and erase it (the output renderer works the line as a terminal
    // would); unmeasured, the whole line goes.
    const width = this.promptWidth;
    if (width === null) run.write(Buffer.from(`\r${ERASE_TO_END}`));
    else if (width > 0) run.write(Buffer.from(`\x1b[${width}D${ERASE_TO_END}`));
    return true;
  }

  /** The call ended otherwise: whether an installation was still waiting for its prompt. */
  abandon(): boolean {
    const was = this.pending;
    this.pending = false;
    return was;
  }
}
