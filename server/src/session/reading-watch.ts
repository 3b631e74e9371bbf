/**
 * Looks at a shell until it is seen blocked reading its own terminal twice in a row: then
 * it is at its prompt, whatever it printed (the first sighting may come before output that
 * says otherwise, still on its way to us). The call line uses it for a prompt that printed
 * no mark, and for a call line that ran without starting.
 */
import type { ProcStat } from '../pty/proc-probe.ts';
import { shellReadsTerminal } from '../pty/terminal-wait.ts';

export class ReadingWatch {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly shellStat: () => ProcStat | null,
    private readonly ttyPath: () => string,
    private readonly intervalMs: number,
  ) {}

  /**
   * Looks until `wanted()` is false (then stops) or the shell is seen reading twice in a
   * row (then calls `seen`). A watch already running goes on as it is.
   */
  start(wanted: () => boolean, seen: () => void): void {
    if (this.timer !== undefined) return;
    let sightings = 0;
    const look = async (): Promise<void> => {
      const reading = await shellReadsTerminal(this.shellStat(), this.ttyPath()).catch(() => false);
      this.timer = undefined;
      if (!wanted()) return;
      sightings = reading ? sightings + 1 : 0;
      if (sightings >= 2) seen();
      else this.timer = setTimeout(() => void look(), this.intervalMs);
    };
    this.timer = setTimeout(() => void look(), this.intervalMs);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
