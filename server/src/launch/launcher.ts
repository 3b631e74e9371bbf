/**
 * Where and how a shell's process starts, decided in one place: the engine hands a launcher
 * what the dialect wants to run and gets back what node-pty spawns, plus how to find every
 * process that belongs to the shell. Unsandboxed and bubblewrap are the two kinds today;
 * containers or remote hosts would be a third implementation of this interface, with no
 * change to the engine.
 */
import type { PtyExit, PtySpawnOptions } from '../pty/pty-process.ts';

export const SANDBOX_MODES = ['auto', 'bwrap', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** What a shell needs from the place it runs in. */
export interface PlacementRequest {
  /** The dialect's program, arguments and environment (already filtered of secrets). */
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** See ShellLaunch.leadsProcessGroup. */
  readonly leadsProcessGroup: boolean;
  readonly cols: number;
  readonly rows: number;
  /** The shell's own directory: it starts there and may write there. */
  readonly workspace: string;
  /** The engine's private directory for this shell (integration and command files): the
   *  shell may read it, never write it. */
  readonly privateDir: string;
  /** The one directory inside `privateDir` the shell may write. */
  readonly privateWritable: string;
  /** Directories the shell may read but not write (its own saved outputs). */
  readonly readable: readonly string[];
  /**
   * The start of a mark the launcher may have printed on the terminal when the shell ends,
   * followed by its exact ending (see exit-waiter.ts), where the exit status it can see
   * would not tell an exit code from a signal. Optional for launchers that see it exactly.
   */
  readonly exitMarkPrefix?: string;
}

/** One shell's place: what to spawn and how to find (and end) everything it started. */
export interface Placement {
  readonly spawn: PtySpawnOptions;
  /**
   * Every live process of the shell, given the pid node-pty reported for it. `ptyOurs`: that
   * pid is still the PTY's process (not reaped and reused), so its descendants are the shell's.
   */
  members(ptyPid: number, ptyOurs: boolean): Promise<Set<number>>;
  /**
   * Every process of the shell lives in a PID namespace whose init descends from the PTY's
   * process: once SIGKILL reached the tree as read, the kernel ends whatever else is in there
   * (nothing leaves a PID namespace), so a stop need not watch each one die.
   */
  readonly contained: boolean;
  /**
   * Finishes the place once the PTY's process runs (attaches the sandbox's network); the
   * shell's first call waits for it. Never rejects: what fails is reported by the launcher.
   */
  started?(ptyPid: number): Promise<void>;
  /**
   * The shell is up and has answered its first call: what the launcher keeps ready for new
   * shells, and this one took, is made again now, not while this shell was still starting
   * (on a small machine that doubled the time to its first result).
   */
  settled?(): void;
  /** How the shell itself ended, from how the PTY's process ended. */
  describeExit(exit: PtyExit): PtyExit;
  /** Frees what the placement holds (a cgroup); called once the shell's processes are gone. */
  release(): void;
  /** At a stop, before the tree is killed: the shell's processes yield the CPU to the server. */
  yieldCpu?(): void;
}

export interface ShellLauncher {
  /** `bwrap` or `off`: what the banner and the API report. */
  readonly kind: 'bwrap' | 'off';
  /**
   * The shell may rename or remove what the server put in its private dir (outside its
   * writable `shell/` part): true unsandboxed; a sandbox mounts that dir read-only.
   */
  readonly shellMayReplaceFiles: boolean;
  place(request: PlacementRequest): Placement;
  /** Ends what an earlier run of this server (killed without a shutdown) left running. */
  sweepLeftovers(): Promise<number>;
  /**
   * At the stop, once every shell was ended: ends what the launcher keeps ready for shells to
   * come, gives the CPU back to what of them is still dying, and removes their cgroups as they
   * empty (for a moment at most).
   */
  close?(): Promise<void>;
}
