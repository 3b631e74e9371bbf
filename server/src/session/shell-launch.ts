/**
 * Starting one shell's process: the dialect's launch, in the shell's workspace and private
 * dir, through the launcher (sandboxed or not), with the exit mark's prefix for the exact
 * ending. A shell that cannot start is reported as unavailable, its private dir removed.
 */
import { randomBytes } from 'node:crypto';
import { JUMPSEAT_ERR_SHELL_UNAVAILABLE, JumpseatError } from '../errors.ts';
import type { DialectContext, ShellDialect } from '../pty/dialect.ts';
import { markText } from '../pty/marks.ts';
import { shellEnvironment } from '../pty/shell-environment.ts';
import { EXIT_MARK } from './shell-ending.ts';
import type { ShellFiles } from './shell-files.ts';
import type { ShellOptions } from './shell-options.ts';
import { ShellProcess } from './shell-process.ts';

export interface LaunchedShell {
  readonly process: ShellProcess;
  /** The launch ran the integration: the install line is typed only to repair. */
  readonly integrated: boolean;
}

/**
 * The dialect's view of the shell's files and marks, with a new tag for the names of its
 * integration (bash's `__js<tag>_…`): four hex digits, no name a command picks by chance, and
 * short, for bash parses and copies these names at every call (at eight digits they were 4 %
 * of its work per call).
 */
export function dialectContext(files: ShellFiles, nonce: string): DialectContext {
  const tag = randomBytes(2).toString('hex');
  return {
    privateDir: files.dir,
    shellDir: files.shellDir,
    takenFile: files.takenFile,
    deliver: (name, text) => files.write(name, text),
    nonce,
    tag,
    commandFile: files.commandFile,
  };
}

/** Starts the shell's process; removes its private dir when that fails. */
export function launchShell(
  options: ShellOptions,
  files: ShellFiles,
  context: DialectContext,
): LaunchedShell {
  let launch: ReturnType<ShellDialect['launch']>;
  try {
    launch = options.dialect.launch(context);
  } catch (error) {
    void files.remove();
    throw error;
  }
  try {
    const process = new ShellProcess(options.launcher, {
      file: launch.file,
      args: launch.args,
      leadsProcessGroup: launch.leadsProcessGroup,
      env: shellEnvironment(options.baseEnv, { pass: options.envPass, extra: launch.env }),
      cols: options.cols,
      rows: options.rows,
      workspace: options.workspace,
      privateDir: files.dir,
      privateWritable: files.shellDir,
      readable: options.readable,
      exitMarkPrefix: markText(context.nonce, EXIT_MARK).slice(0, -1),
    });
    return { process, integrated: launch.integrated === true };
  } catch (error) {
    void files.remove();
    throw new JumpseatError(
      JUMPSEAT_ERR_SHELL_UNAVAILABLE,
      `could not start ${options.dialect.name}: ${(error as Error).message}`,
    );
  }
}
