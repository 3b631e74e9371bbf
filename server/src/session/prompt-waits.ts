/**
 * Who waits for a shell's prompt: a line of the engine's own, hidden from the display until
 * its prompt is shown (the line editing switched for a person, the integration installed in a
 * fresh shell), and whoever waits for the prompt on its way after a command's end.
 */
export class PromptWaits {
  /** A line of our own runs: what it displays, up to its prompt's end, is hidden. */
  private ownLine = false;
  private ownLineWaiters: (() => void)[] = [];
  private promptWaiters: (() => void)[] = [];
  /** Prompts shown so far: a new count is a new prompt. */
  private shownCount = 0;

  get promptsShown(): number {
    return this.shownCount;
  }

  get hidingOwnLine(): boolean {
    return this.ownLine;
  }

  /**
   * Types a line of our own with `write`, hidden until its prompt is shown: resolves whether
   * that came within `limitMs`. If not, a Ctrl-C may have flushed the line before the shell
   * read it: nothing more is hidden, and if it was only slow, its prompt is taken as any other.
   */
  async runOwnLine(line: string, limitMs: number, write: (text: string) => void): Promise<boolean> {
    const shown = this.ownLineTyped().then(() => true);
    write(line);
    let limit: NodeJS.Timeout | undefined;
    const came = await Promise.race([
      shown,
      new Promise<boolean>((resolve) => {
        limit = setTimeout(() => resolve(false), limitMs);
      }),
    ]);
    clearTimeout(limit);
    if (!came) this.ownLineLost();
    return came;
  }

  /** A line of our own is typed now: resolves once its prompt is shown. */
  ownLineTyped(): Promise<void> {
    this.ownLine = true;
    return new Promise((resolve) => this.ownLineWaiters.push(resolve));
  }

  /** The own line's prompt is not coming: nothing more is hidden, and nobody waits for it. */
  ownLineLost(): void {
    this.ownLine = false;
    this.ownLineWaiters.splice(0);
  }

  /** Resolves when the next prompt is shown, or after `limitMs`. */
  nextPrompt(limitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const limit = setTimeout(resolve, limitMs);
      this.promptWaiters.push(() => {
        clearTimeout(limit);
        resolve();
      });
    });
  }

  /** A prompt is shown: whether it was a line of our own's. */
  shown(): boolean {
    this.shownCount++;
    this.shellExited();
    if (!this.ownLine) return false;
    this.ownLine = false;
    for (const resolve of this.ownLineWaiters.splice(0)) resolve();
    return true;
  }

  /** The shell ended: no prompt comes. */
  shellExited(): void {
    for (const resolve of this.promptWaiters.splice(0)) resolve();
  }
}
