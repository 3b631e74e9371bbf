/**
 * The one manager: maps (agent, dialect) to its live shell, starts shells lazily, runs each
 * key's calls strictly in arrival order (different keys never wait for each other), and
 * keeps recently exited shells so their calls stay readable.
 */
import { randomUUID } from 'node:crypto';
import type { Dialect, SessionInfo } from '../../../shared/src/api.ts';
import {
  JUMPSEAT_ERR_AGENT_HAS_SHELL,
  JUMPSEAT_ERR_NOT_PERSONAL,
  JUMPSEAT_ERR_SHELL_CAPACITY,
  JUMPSEAT_ERR_SHUTTING_DOWN,
  JUMPSEAT_ERR_TOO_MANY_SHELLS,
  JumpseatError,
} from '../errors.ts';
import { Emitter } from '../pty/disposable.ts';
import { personalPromptCommand } from './personal-prompt.ts';
import {
  Shell,
  type ShellCallResult,
  ShellGoneError,
  type ShellOptions,
  type ShellOwner,
} from './shell.ts';

/** Exited shells kept for the supervisor API before the oldest is forgotten. */
const MAX_EXITED_SHELLS_KEPT = 200;
/**
 * Live shells one person (one token) may have open of their own: enough for any real session,
 * while a runaway script cannot fill the machine with shells.
 */
export const MAX_PERSONAL_SHELLS = 16;

/** Where a shell works and what else it may read, for an agent's shell or a person's. */
export interface ShellPlace {
  readonly workspace: string;
  readonly readable: readonly string[];
}

export type ShellSettings = Omit<
  ShellOptions,
  'id' | 'agent' | 'owner' | 'workspace' | 'readable'
> & {
  readonly placeOf: (
    who: { readonly agent: string } | { readonly owner: ShellOwner },
  ) => ShellPlace;
};

export interface ExecutedCall {
  readonly shell: Shell;
  readonly result: ShellCallResult;
  readonly startedAt: Date;
  readonly durationMs: number;
}

export class CallCancelledError extends Error {
  constructor() {
    super('the call was cancelled before it started');
    this.name = 'CallCancelledError';
  }
}

export class ShellRegistry {
  /** A shell was created (it is `starting`). */
  readonly onShellAdded = new Emitter<Shell>();
  /** A shell is no longer listed (forgotten after failing to start, or evicted). */
  readonly onShellRemoved = new Emitter<Shell>();
  /** A shell could not start: why (its error), before the call or the person is told. Not
   *  one ended on purpose (reset, closed) while it started. */
  readonly onStartFailed = new Emitter<{ readonly shell: Shell; readonly error: unknown }>();
  private readonly live = new Map<string, Shell>();
  private readonly known = new Map<string, Shell>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private closed = false;

  /**
   * `maxShells`: live shells at most (what the open-file limit allows, ops/descriptor-limit.ts);
   * past it a new shell is refused, and the shells that run go on.
   */
  constructor(
    private readonly settingsFor: (dialect: Dialect) => ShellSettings,
    private readonly maxShells = Number.POSITIVE_INFINITY,
  ) {}

  /** Queues the call behind earlier calls of the same agent and dialect, then runs it. */
  async execute(
    agent: string,
    dialect: Dialect,
    command: string,
    signal: AbortSignal,
  ): Promise<ExecutedCall> {
    const key = `${agent}\u0000${dialect}`;
    // Refused at once, not after the queue: the agent learns a human has its shell now.
    this.live.get(key)?.human.refuseAgent();
    const previous = this.queues.get(key) ?? Promise.resolve();
    const turn = previous.then(() => this.runTurn(key, agent, dialect, command, signal));
    const tail = turn.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return turn;
  }

  /**
   * Opens a person's own shell: listed and watched like an agent's, but no agent call can
   * reach it (it is in no agent's slot) until it is handed to one. Resolves once it is ready.
   */
  async openPersonal(owner: ShellOwner, dialect: Dialect): Promise<Shell> {
    if (this.closed)
      throw new JumpseatError(JUMPSEAT_ERR_SHUTTING_DOWN, 'the server is shutting down');
    this.refuseOverCapacity();
    const open = [...this.known.values()].filter(
      (shell) => shell.alive && shell.agent === null && shell.owner?.tokenId === owner.tokenId,
    );
    if (open.length >= MAX_PERSONAL_SHELLS) {
      throw new JumpseatError(
        JUMPSEAT_ERR_TOO_MANY_SHELLS,
        `you have ${open.length} shells of your own open, the most one may; close one first`,
      );
    }
    const settings = this.settingsFor(dialect);
    const shell = new Shell({
      ...settings,
      ...settings.placeOf({ owner }),
      id: randomUUID(),
      agent: null,
      owner,
    });
    this.known.set(shell.id, shell);
    this.onShellAdded.fire(shell);
    this.evictExited();
    try {
      await shell.whenReady().catch((error: unknown) => {
        if (!shell.startAbandoned) this.onStartFailed.fire({ shell, error });
        throw error;
      });
      // Bounded by the dialect's call timeout, as any call is.
      await shell.execute(personalPromptCommand(dialect), new AbortController().signal);
    } catch (error) {
      this.known.delete(shell.id);
      this.onShellRemoved.fire(shell);
      void shell.dispose();
      throw error;
    }
    return shell;
  }

  /**
   * Makes a person's live shell `agent`'s shell of its dialect: the agent's next call runs in
   * it, as it is (cwd, variables, history). Refused while the agent has a live shell of that
   * dialect, so no shell of the agent's is ever dropped by a hand-off.
   */
  async handOff(shell: Shell, agent: string): Promise<void> {
    if (shell.agent !== null || !shell.alive) {
      throw new JumpseatError(
        JUMPSEAT_ERR_NOT_PERSONAL,
        shell.alive
          ? `this shell already belongs to agent "${shell.agent}"`
          : 'this shell has ended; open a new one to hand over',
      );
    }
    const dialect = shell.dialect.name;
    const key = `${agent}\u0000${dialect}`;
    const current = this.live.get(key);
    if (current?.alive && !current.ending) {
      throw new JumpseatError(
        JUMPSEAT_ERR_AGENT_HAS_SHELL,
        `agent "${agent}" already has a live ${dialect} shell (${current.id}); end that shell or hand this one to another agent`,
      );
    }
    this.live.set(key, shell);
    shell.assignAgent(agent);
    await shell.human.handToAgent();
  }

  sessions(): SessionInfo[] {
    return [...this.known.values()].map((shell) => shell.info());
  }

  find(id: string): Shell | undefined {
    return this.known.get(id);
  }

  /** Every shell the registry lists, live or exited. */
  shells(): Shell[] {
    return [...this.known.values()];
  }

  /** No new shell from now on; every shell that ends from now on ends by the close. */
  beginClose(): void {
    this.closed = true;
    for (const shell of this.known.values()) shell.beginClose();
  }

  /**
   * Ends every shell's process tree, all at once: a stop costs the slowest shell's end. Their
   * private dirs are left to the run's removal, after (PrivateDirs.removeRun).
   */
  async close(): Promise<void> {
    this.beginClose();
    await Promise.all([...this.known.values()].map((shell) => shell.dispose()));
    this.live.clear();
  }

  private async runTurn(
    key: string,
    agent: string,
    dialect: Dialect,
    command: string,
    signal: AbortSignal,
  ): Promise<ExecutedCall> {
    if (signal.aborted) throw new CallCancelledError();
    if (this.closed)
      throw new JumpseatError(JUMPSEAT_ERR_SHUTTING_DOWN, 'the server is shutting down');
    const startedAt = new Date();
    // The deadline covers the whole call, a new shell's start-up included.
    const deadlineAt = startedAt.getTime() + this.settingsFor(dialect).timeoutMs;
    for (let attempt = 0; ; attempt++) {
      // A shell being ended (a reset under way) takes no call: its tree ends first (within a
      // second), so the new shell does not share its workspace with a dying one, nor count
      // twice against the capacity; never past the call's deadline.
      const ending = this.live.get(key);
      if (ending?.alive && ending.ending) await exitedBy(ending, deadlineAt);
      const shell = this.liveShell(key, agent, dialect);
      let ready: boolean;
      try {
        ready = await shell.readyBy(deadlineAt);
      } catch (error) {
        this.forget(key, shell);
        if (!shell.startAbandoned) this.onStartFailed.fire({ shell, error });
        throw error;
      }
      try {
        const result = ready
          ? await shell.execute(command, signal, deadlineAt)
          : await shell.startTimedOut();
        return { shell, result, startedAt, durationMs: Date.now() - startedAt.getTime() };
      } catch (error) {
        // The shell died between calls, before this command began: it runs in a new one.
        if (!(error instanceof ShellGoneError) || attempt > 0 || signal.aborted) throw error;
        await shell.reset();
      }
    }
  }

  private liveShell(key: string, agent: string, dialect: Dialect): Shell {
    const current = this.live.get(key);
    // A shell being ended (a reset not finished yet) takes no call: the call starts a new one.
    if (current?.alive && !current.ending) return current;
    this.refuseOverCapacity();
    const settings = this.settingsFor(dialect);
    const shell = new Shell({
      ...settings,
      ...settings.placeOf({ agent }),
      id: randomUUID(),
      agent,
    });
    this.live.set(key, shell);
    this.known.set(shell.id, shell);
    this.onShellAdded.fire(shell);
    this.evictExited();
    return shell;
  }

  private refuseOverCapacity(): void {
    if (this.maxShells === Number.POSITIVE_INFINITY) return;
    if (this.maxShells === 0) {
      throw new JumpseatError(
        JUMPSEAT_ERR_SHELL_CAPACITY,
        'this server is a control plane that runs no shells itself (--local-shells off): agents’ shells run on joined hosts, and a person’s own shell on a joined host is not supported yet',
      );
    }
    let live = 0;
    for (const shell of this.known.values()) if (shell.alive) live++;
    if (live < this.maxShells) return;
    throw new JumpseatError(
      JUMPSEAT_ERR_SHELL_CAPACITY,
      `this server runs ${live} shells, as many as its open-file limit allows; end a shell (or raise the server's RLIMIT_NOFILE) and try again`,
    );
  }

  private forget(key: string, shell: Shell): void {
    if (this.live.get(key) === shell) this.live.delete(key);
    this.known.delete(shell.id);
    this.onShellRemoved.fire(shell);
    void shell.dispose();
  }

  private evictExited(): void {
    const exited = [...this.known.values()].filter((shell) => !shell.alive);
    for (const shell of exited.slice(0, Math.max(0, exited.length - MAX_EXITED_SHELLS_KEPT))) {
      this.known.delete(shell.id);
      this.onShellRemoved.fire(shell);
      void shell.dispose();
    }
  }
}

/** Resolves once `shell` is `exited`, or at `deadlineAt` (epoch ms) if that comes first. */
async function exitedBy(shell: Shell, deadlineAt: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadlineAt - Date.now()));
  });
  try {
    await Promise.race([shell.whenExited(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
