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
   * `reader` waits on the terminal: whether it is the shell process, now running a fresh
   * shell of its dialect that the integration was not installed in (then it counts as
   * installed: a program is given the integration once).
   */
  freshShell(reader: WaitingReader): boolean {
    const fresh = this.dialect.freshShellAfterExec;
    if (fresh === undefined || reader.pid !== this.pid() || this.installedIn === '') return false;
    const program = readProgramNow(reader.pid);
    if (program === null || program.words.length === 0) return false;
    const now = identity(program);
    if (now === this.installedIn) return false;
    this.installedIn = now;
    return fresh.call(this.dialect, reader.name, program.words.slice(1));
  }
}

/** One string for a program: its command line and where its stack starts. */
function identity(program: ProcProgram): string {
  return `${program.stack}\0${program.words.join('\0')}`;
}
