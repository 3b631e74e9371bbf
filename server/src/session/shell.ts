/**
 * One live shell: its PTY process, screen model, display stream and state, and the parts it
 * wires together (output routing, the call line, the agent's calls, human control, its
 * start-up and ending). One call at a time: queueing is the registry's job.
 */
import { randomBytes } from 'node:crypto';
import type {
  CallInfo,
  SessionEndingKind,
  SessionInfo,
  SessionState,
} from '../../../shared/src/api.ts';
import type { ShellDialect } from '../pty/dialect.ts';
import { DisposableStore, Emitter } from '../pty/disposable.ts';
import { type Mark, markNonce } from '../pty/marks.ts';
import { treeSummary } from '../pty/proc-probe.ts';
import type { PtyExit } from '../pty/pty-process.ts';
import type { ScreenSnapshot } from '../screen/screen-model.ts';
import { type AgentCallHost, AgentCalls } from './agent-calls.ts';
import { CallLine } from './call-line.ts';
import { callLineHostOf } from './call-line-host.ts';
import { HumanControl } from './human-control.ts';
import { OutputRouter } from './output-router.ts';
import { type ControlsHost, ShellControls } from './shell-controls.ts';
import { type DisplayChunk, ShellDisplay } from './shell-display.ts';
import { EXIT_MARK, ShellEndingRecord } from './shell-ending.ts';
import type { ShellFiles } from './shell-files.ts';
import { shellInfo } from './shell-info.ts';
import { dialectContext, launchShell } from './shell-launch.ts';
import type { CallStart, ShellCallResult, ShellOptions, ShellOwner } from './shell-options.ts';
import type { ShellProcess } from './shell-process.ts';
import { ShellStartUp } from './shell-start.ts';
import { ShellStatus } from './shell-status.ts';

export type { DisplayChunk } from './shell-display.ts';
export {
  type CallStart,
  type ShellCallResult,
  ShellGoneError,
  type ShellOptions,
  type ShellOwner,
} from './shell-options.ts';

export class Shell {
  readonly id: string;
  readonly owner: ShellOwner | null;
  readonly startedAt = new Date();
  /** How and when the shell ended. */
  private readonly endingRecord = new ShellEndingRecord();
  /** The server is stopping (beginClose): a contained tree is killed without watching it die. */
  private stopping = false;
  /** Anything `info()` reports changed (state, command, controller, viewers, size). */
  readonly onChange = new Emitter<void>();
  readonly onCallStarted = new Emitter<CallStart>();
  readonly onCallFinished = new Emitter<CallInfo>();
  readonly onResize = new Emitter<{ cols: number; rows: number }>();
  /** Resolved as the shell becomes `exited` (see whenExited). */
  private markExited: () => void = () => undefined;
  private readonly exited = new Promise<void>((resolve) => {
    this.markExited = resolve;
  });
  /** State, since when, last exit code, terminal (see ShellStatus). */
  private readonly status = new ShellStatus(
    () => {
      this.markExited();
      this.human.shellExited();
      this.calls.shellExited();
      // An ended shell keeps its info and history, not its screen model (issue 15).
      this.output.freezeWhenQuiet();
    },
    () => this.onChange.fire(),
  );
  private readonly pty: ShellProcess;
  /** Where the PTY's output goes (see OutputRouter). */
  private readonly router: OutputRouter;
  private readonly output: ShellDisplay;
  private readonly files: ShellFiles;
  private readonly disposables = new DisposableStore();
  private readonly start = new ShellStartUp();
  private readonly agentCalls: AgentCalls;
  /** The prompt, the call line, and what holds the terminal. */
  private readonly calls: CallLine;
  /** A human at the controls, when one takes them. */
  readonly human: HumanControl;
  private viewerCount = 0;
  /** What a human at the controls may do with the shell. */
  private readonly controls: ShellControls;
  private agentId: string | null;

  constructor(private readonly options: ShellOptions) {
    this.id = options.id;
    this.agentId = options.agent;
    this.owner = options.owner ?? null;
    const nonce = markNonce(randomBytes(16));
    const files = options.privateDirs.create(options.launcher.shellMayReplaceFiles);
    this.files = files;
    const context = dialectContext(files, nonce);
    this.output = new ShellDisplay(options.cols, options.rows);
    const launched = launchShell(options, files, context);
    this.pty = launched.process;
    const { status, pty, output, dialect } = this;
    const parts = { status, pty, output, files, dialect };
    const host = callLineHostOf({
      ...parts,
      human: () => this.human,
      run: () => this.agentCalls.run,
    });
    this.calls = new CallLine(status, dialect.callLine(context), host);
    this.controls = new ShellControls(
      {
        ...parts,
        calls: this.calls,
        editing: options.dialect.humanEditing?.(context),
        agentSize: { cols: options.cols, rows: options.rows },
      },
      this.controlsHost(),
    );
    this.human = new HumanControl(this.controls);
    this.agentCalls = new AgentCalls(
      {
        ...parts,
        calls: this.calls,
        human: this.human,
        newCapture: options.newCapture,
        ready: this.start.ready,
      },
      this.agentCallHost(),
    );
    this.router = new OutputRouter(
      {
        status: this.status,
        pty: this.pty,
        output: this.output,
        nonce,
        answersCursorQueries: options.dialect.answersCursorQueries,
      },
      {
        hiding: () => this.calls.hiding,
        onMark: (mark) => this.onMark(mark),
        capture: (data) => this.agentCalls.run?.write(data),
      },
    );
    this.disposables.add(
      this.pty.onData((chunk) => {
        this.start.heard(chunk);
        this.router.push(chunk);
      }),
    );
    this.disposables.add(this.pty.onExit((exit) => void this.onPtyExit(exit)));
    void this.start.install({
      name: options.dialect.name,
      prepare: () => options.dialect.install(context),
      prepared: (line) => {
        this.calls.installLine = line;
        // The launch ran the integration: the install line is typed only to repair.
        if (!launched.integrated) this.pty.write(line);
      },
      reset: () => void this.reset(),
      stillRunning: () => treeSummary(this.pty.pid),
    });
  }

  get dialect(): ShellDialect {
    return this.options.dialect;
  }

  /** The agent whose shell this is; null while it is a person's own shell. */
  get agent(): string | null {
    return this.agentId;
  }

  /** Makes a person's shell an agent's (the registry checked); theirs until they let go. */
  assignAgent(agent: string): void {
    this.agentId = agent;
    this.onChange.fire();
  }

  get state(): SessionState {
    return this.status.state;
  }

  /** The shell process itself, as the host numbers it (in a sandbox, the PTY's child). */
  get pid(): number {
    return this.pty.pid;
  }

  get alive(): boolean {
    return this.status.alive;
  }

  /**
   * Its end has begun (a reset, the server's close, its process's exit) though it may not be
   * `exited` yet: ending the tree takes a while, and no call may start in it meanwhile.
   */
  get ending(): boolean {
    return this.endingRecord.ending !== null;
  }

  /** Resolves once the shell is `exited`: its tree ended, what it printed read. */
  whenExited(): Promise<void> {
    return this.exited;
  }

  /** The shell was ended (reset, closed) before it was ready: its start did not fail. */
  get startAbandoned(): boolean {
    return this.start.wasAbandoned;
  }

  /** Resolves when the integration is installed and the first prompt is up. */
  whenReady(): Promise<void> {
    return this.start.ready;
  }

  /**
   * Resolves true once the shell is ready, false if `deadlineAt` (epoch ms) comes first;
   * rejects as `whenReady` does when the shell cannot start.
   */
  readyBy(deadlineAt: number): Promise<boolean> {
    return this.start.readyBy(deadlineAt);
  }

  /** A call whose deadline passed while the shell was still starting: the shell is reset,
   *  and the result says the call timed out (its command never ran). */
  startTimedOut(): Promise<ShellCallResult> {
    return this.agentCalls.startTimedOut();
  }

  /**
   * Runs one call: a new command when the shell is at its prompt, or one line of input
   * for the program that waits on the terminal. `signal` aborting cancels the call. The
   * deadline (epoch ms) is the call's, counted from before the shell started if it had to.
   * Throws ShellGoneError when the shell died before the command began: it never ran.
   */
  execute(
    command: string,
    signal: AbortSignal,
    deadlineAt = Date.now() + this.options.timeoutMs,
  ): Promise<ShellCallResult> {
    return this.agentCalls.execute(command, signal, deadlineAt);
  }

  /** The server is stopping: a reset from now on (a cancelled call's) is the shell's close. */
  beginClose(): void {
    this.endingRecord.beginClose();
    this.stopping = true;
  }

  /** Ends the whole process tree; the shell is then `exited`. */
  async reset(cause: Extract<SessionEndingKind, 'reset' | 'closed'> = 'reset'): Promise<void> {
    // Ended on purpose while starting: its start is refused as such, not as a failure.
    this.start.abandon();
    this.endingRecord.endedBy(cause);
    await this.pty.endTree({ stopping: this.stopping });
    this.status.set('exited');
  }

  /** The visible screen as text, once every displayed byte has been parsed. */
  screenText(): Promise<string> {
    return this.output.screenText();
  }

  /** Screen and scrollback serialized, with the exact display offset they cover. */
  snapshot(): Promise<ScreenSnapshot> {
    return this.output.snapshot();
  }

  /** Display bytes produced so far: the offset the next display chunk starts at. */
  get displayOffset(): number {
    return this.output.offset;
  }

  /** Every display chunk, in order (see ShellDisplay). */
  get onDisplay(): Emitter<DisplayChunk> {
    return this.output.onDisplay;
  }

  /** A call's record with its exact result text: announced to the live stream and the store. */
  recordCall(call: CallInfo): void {
    this.pty.answered();
    this.onCallFinished.fire(call);
  }

  /** How many people watch (kept by the live hub, reported in `info()`). */
  set viewers(count: number) {
    if (count === this.viewerCount) return;
    this.viewerCount = count;
    this.onChange.fire();
  }

  /** What the controls may ask of this shell (see ControlsHost). */
  private controlsHost(): ControlsHost {
    const shell = this;
    return {
      get human() {
        return shell.human;
      },
      get run() {
        return shell.agentCalls.run;
      },
      get personal() {
        return shell.agentId === null;
      },
      resized: (size) => {
        this.onResize.fire(size);
        this.onChange.fire();
      },
      changed: () => this.onChange.fire(),
      afterPerson: () => this.agentCalls.afterPerson(),
    };
  }

  /** What the agent's calls may do with this shell (see AgentCallHost). */
  private agentCallHost(): AgentCallHost {
    const shell = this;
    return {
      get agent() {
        return shell.agentId;
      },
      get resetByEngine() {
        return shell.endingRecord.ending?.kind === 'reset';
      },
      switchEditing: () => this.controls.switchEditing(),
      screenText: () => this.screenText(),
      reset: () => this.reset(),
      display: (data) => this.output.show(data),
      hideHostEcho: (hide) => {
        this.router.hideHostEcho(hide);
      },
      started: (call) => this.onCallStarted.fire(call),
    };
  }

  info(): SessionInfo {
    return shellInfo(this, {
      status: this.status,
      foreground: this.calls.foreground,
      controller: this.human.controller?.name ?? null,
      size: this.controls.size,
      viewers: this.viewerCount,
      ending: this.endingRecord.ending,
    });
  }

  /** Frees everything; ends the process tree if it still runs. At a stop the private dir is
   *  left to the run's removal, every shell's at once (PrivateDirs.removeRun). */
  async dispose(): Promise<void> {
    if (this.alive) await this.reset('closed');
    this.calls.dispose();
    this.disposables.dispose();
    this.output.dispose();
    const { onChange, onCallStarted, onCallFinished, onResize, human } = this;
    const emitters = [onChange, onCallStarted, onCallFinished, onResize, human.onControl];
    for (const emitter of [...emitters, human.onInterrupt, human.onInput]) emitter.clear();
    if (this.stopping) this.files.close();
    else await this.files.remove();
  }

  /** The ready mark and the exit mark are the shell's; the prompt and call marks its call line's. */
  private onMark(mark: Mark): void {
    switch (mark.event) {
      case 'R':
        if (!this.router.integrationReady()) break; // a repair re-installed the integration
        // The mark carries the shell's pid as the shell sees it (in a sandbox, its namespace's).
        void this.pty.locate(/^\d+$/.test(mark.data) ? Number(mark.data) : null).then(({ tty }) => {
          this.status.ttyPath = tty;
          this.agentCalls.integrationInstalled();
          this.status.set('idle');
          this.start.succeed();
        });
        break;
      case EXIT_MARK:
        this.endingRecord.exitMark(mark.data);
        break;
      default:
        // Marks after an exit mark: that one was a command's forgery (see shell-ending.ts).
        this.endingRecord.forgetExitMark();
        this.calls.onMark(mark);
    }
  }

  private async onPtyExit(seen: PtyExit): Promise<void> {
    const settle = this.endingRecord.exited(seen);
    await this.pty.quiet();
    this.router.flush();
    // The launcher's exact ending arrives as output, read by now.
    const exit = settle();
    // Before the ready mark, what the shell printed is the launch's: why it failed.
    this.start.exited(this.options.dialect.name, exit, this.calls.installLine);
    // Jobs the shell left behind belong to its tree: the reset the result announces ends
    // them before the agent reads it.
    await this.pty.endTree();
    this.status.set('exited');
    this.agentCalls.run?.shellExited(exit.code, exit.signal);
  }
}
