/**
 * The program the shell process runs. A command may replace it (`exec bash`): the process
 * stays, its integration is gone, and every later call would be typed to a bare shell as
 * input (`[waiting for input: bash]`, for good). Told apart from a shell reading its terminal
 * in a command (`read x`) by what /proc says of its program, which `exec` changes; the dialect
 * says whether the new program is a fresh shell of its own that takes the integration again.
 */
import type { ShellDialect } from '../pty/dialect.ts';
import { type ProcProgram, readProgramNow } from '../pty/proc-probe.ts';
import type { WaitingReader } from '../pty/terminal-wait.ts';

/**
 * What the shell process runs, against the program the integration was installed in: that
 * one, a fresh shell of the dialect (`exec bash`), or another program (`exec python3`).
 */
export type ShellProgram = 'installed' | 'fresh-shell' | 'other';

export class ShellImage {
  /** The program the integration was last installed in ('' before it was). */
  private installedIn = '';

  constructor(
    /** The shell process, as the host numbers it. */
    private readonly pid: () => number,
    private readonly dialect: ShellDialect,
  ) {}

  /** The integration is installed in the program the shell process runs now. */
  installed(): void {
    const program = readProgramNow(this.pid());
    if (program) this.installedIn = identity(program);
  }

  /**
   * What the shell process runs now. A program other than the installed one is told once:
   * from then on it counts as installed (it is given the integration, or left as it is).
   */
  current(): ShellProgram {
    const program = readProgramNow(this.pid());
    if (program === null || program.words.length === 0 || this.installedIn === '') {
      return 'installed';
    }
    const now = identity(program);
    if (now === this.installedIn) return 'installed';
    this.installedIn = now;
    const fresh = this.dialect.freshShellAfterExec?.(program.name, program.words.slice(1));
    return fresh ? 'fresh-shell' : 'other';
  }

  /** `reader` waits on the terminal: whether it is the shell process, now a fresh shell. */
  freshShell(reader: WaitingReader): boolean {
    return reader.pid === this.pid() && this.current() === 'fresh-shell';
  }
}

/** One string for a program: its command line and where its stack starts. */
function identity(program: ProcProgram): string {
  return `${program.stack}\0${program.words.join('\0')}`;
}
