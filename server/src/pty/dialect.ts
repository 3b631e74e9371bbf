/**
 * What differs between shells: how one starts, how its integration is installed, and the
 * line typed to run one call. Everything else (marks, probing, results) is shared, so a
 * second dialect is a second module of this shape, not a second engine.
 */
import type { Dialect } from '../../../shared/src/api.ts';

export interface ShellLaunch {
  readonly file: string;
  readonly args: readonly string[];
  /** Variables the dialect needs at start. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * The launch itself runs the integration (e.g. pwsh's `-NoExit -Command`), so the line
   * `install()` returns is typed only to repair the shell, never at start.
   */
  readonly integrated?: boolean;
  /**
   * The program puts itself in a process group of its own and takes the terminal's
   * foreground (bash -i does, pwsh does not). One that does not shares the group of the
   * process that started it, which in a sandbox is the sandbox's own: a Ctrl-C would end it.
   */
  readonly leadsProcessGroup: boolean;
}

export interface DialectContext {
  /**
   * The server's private directory (mode 700) for this shell's integration and command
   * files: the shell may read it, never write it (read-only inside a sandbox).
   */
  readonly privateDir: string;
  /** The one directory of the private dir the shell writes (its trap texts, `takenFile`). */
  readonly shellDir: string;
  /**
   * Where the integration writes the call's nonce once it took the command file's command
   * (after the start mark): the engine then knows the command may have run.
   */
  readonly takenFile: string;
  /** Writes a file of the integration into `privateDir` (never through a link); its path. */
  readonly deliver: (name: string, text: string) => string;
  /** The shell nonce every mark of this shell carries (see `markNonce`). */
  readonly nonce: string;
  /** A random part for the names the integration defines in the shell, so that no command
   *  reaches them by accident (lower-case hex). */
  readonly tag: string;
  /**
   * The file (in `privateDir`) a call is written to before the call line is typed, as
   * `commandFileContent` lays it out; the integration reads it, then writes `takenFile`.
   */
  readonly commandFile: string;
}

/**
 * The taken mark's size (`takenFile`): what the integration writes there is padded with
 * spaces to this many bytes, over the file in place, and the engine reads this many bytes
 * and drops the padding. Written in place, not truncated first: on ext4, truncating a
 * file that holds data and writing it again makes the close wait for the disk (its
 * `auto_da_alloc`), several ms per call on a busy disk, twice per call. The padding covers
 * the whole part the engine reads, so nothing else written there can show.
 */
export const TAKEN_MARK_BYTES = 64;

/** What the command file holds for one call: its nonce on the first line, then the command
 *  exactly as given. One layout for every dialect's integration to read. */
export function commandFileContent(callNonce: string, command: string): string {
  return `${callNonce}\n${command}`;
}

export interface ShellDialect {
  readonly name: Dialect;
  launch(context: DialectContext): ShellLaunch;
  /**
   * Has the integration files in the private dir (written here, or by `launch`) and returns
   * the text to type once the shell has started; the integration prints the `R` mark when it is ready. Typing the
   * same text again later re-installs it (repairs a shell a command broke).
   */
  install(context: DialectContext): Promise<string>;
  /** The fixed line typed to run the call in the context's `commandFile`. */
  callLine(context: DialectContext): string;
  /**
   * Lines that switch the shell's own line editing on for a human at the controls (history,
   * arrow keys, completion) and off again for the agent; typed at the prompt, their echo and
   * the prompt they cause are hidden. Absent: the human types as the agent does.
   */
  humanEditing?(context: DialectContext): { readonly on: string; readonly off: string };
  /**
   * The shell process ran `exec` and now runs `name` with `args` (without argv[0]), reading
   * its terminal: whether that is a fresh interactive shell of this dialect at its prompt
   * (`exec bash`), into which typing the install line installs the integration again.
   * Absent: the dialect's shell has no such `exec`.
   */
  freshShellAfterExec?(name: string, args: readonly string[]): boolean;
  /**
   * The shell asks the terminal where its cursor is (`ESC [ 6 n`) and blocks until told:
   * the engine answers from the screen model, as the terminal a human watches would.
   */
  readonly answersCursorQueries: boolean;
  /**
   * When the shell process itself reads a line (pwsh's `Read-Host`), it echoes the line
   * itself whatever the terminal's echo setting; the engine then hides that echo up to its
   * line end, showing viewers its own rendering instead, so typed input never comes back
   * in a result as redraw debris.
   */
  readonly hostEchoesInput: boolean;
  /**
   * How an interrupt reaches a command that runs in the shell's own process group (no job
   * control): `group`, the whole group at once, as a terminal's Ctrl-C (bash: there it only
   * meets the shell, or a subshell); `shell-first`, the shell alone, and its programs only
   * once its own break handling has begun (pwsh: see `session/shell-first-interrupt.ts`).
   */
  readonly ownGroupInterrupt: 'group' | 'shell-first';
}
