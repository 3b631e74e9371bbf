/**
 * What a shell is made from and what its calls give back: the types the registry and the
 * API share with `Shell` (re-exported from shell.ts, where the rest of the server takes them).
 */
import type { ShellLauncher } from '../launch/launcher.ts';
import type { ShellDialect } from '../pty/dialect.ts';
import type { CallResult, CaptureFactory } from './capture.ts';
import type { PrivateDirs } from './shell-files.ts';

/** The person who opened a shell of their own (see ShellRegistry.openPersonal). */
export interface ShellOwner {
  readonly name: string;
  /** The token they opened it with: that token is the owner's, whatever its name becomes. */
  readonly tokenId: string;
}

export interface ShellOptions {
  readonly id: string;
  /** The agent whose shell this is; null for a person's own shell. */
  readonly agent: string | null;
  readonly owner?: ShellOwner;
  readonly dialect: ShellDialect;
  /** The shell's own directory: it starts there (see Workspaces). */
  readonly workspace: string;
  /** Decides where the shell's process runs (sandboxed or not); the shell never knows which. */
  readonly launcher: ShellLauncher;
  /** Where the shell's private dir is made (under the data dir). */
  readonly privateDirs: PrivateDirs;
  /** Directories the shell may read (its saved outputs). */
  readonly readable: readonly string[];
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly envPass: readonly string[];
  readonly cols: number;
  readonly rows: number;
  readonly timeoutMs: number;
  readonly newCapture: CaptureFactory;
}

export interface CallStart {
  readonly command: string;
  readonly startedAt: string;
}

/** A call's result plus what a human did to the shell since the agent's previous result. */
export interface ShellCallResult extends CallResult {
  readonly humanSummary: string | null;
}

/**
 * The shell ended before the call's command began (it died between calls, or while the
 * call line was on its way): the command never ran, so a new shell may run it.
 */
export class ShellGoneError extends Error {
  constructor() {
    super('the shell ended before the command began');
    this.name = 'ShellGoneError';
  }
}
