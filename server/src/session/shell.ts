/**
 * One live shell: its PTY process, mark scanner, screen model, display stream and state.
 * Every PTY byte goes, in order, to the display stream (screen model and listeners) and to
 * the capture of the call in flight. One call at a time: queueing is the registry's job.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  CallInfo,
  SessionEnding,
  SessionEndingKind,
  SessionInfo,
  SessionState,
} from '../../../shared/src/api.ts';
import { JUMPSEAT_ERR_SHELL_UNAVAILABLE, JumpseatError } from '../errors.ts';
import type { ShellLauncher } from '../launch/launcher.ts';
import { CursorQueryScanner, cursorReport } from '../pty/cursor-queries.ts';
import { commandFileContent, type DialectContext, type ShellDialect } from '../pty/dialect.ts';
import { DisposableStore, Emitter } from '../pty/disposable.ts';
import { type Mark, MarkScanner, markNonce } from '../pty/marks.ts';
import { findWaitingReader, readStat } from '../pty/proc-probe.ts';
import type { PtyExit } from '../pty/pty-process.ts';
import { shellEnvironment } from '../pty/shell-environment.ts';
import type { ScreenSnapshot } from '../screen/screen-model.ts';
import { CallRun } from './call-run.ts';
import type { CallResult, CaptureFactory } from './capture.ts';
import { type ControlledShell, HumanControl } from './human-control.ts';
import { type DisplayChunk, ShellDisplay } from './shell-display.ts';
import { ShellProcess } from './shell-process.ts';
import { commandEcho, inputEcho, isControlKey, keystrokesFor } from './typing.ts';

/** A shell that has not printed its ready mark by then is reported as unavailable. */
const START_TIMEOUT_MS = 15_000;
/** Status reported when an interrupted call's prompt mark carries no number (128 + SIGINT). */
const INTERRUPTED_STATUS = 130;
/** Spacing of the looks at a shell whose call line may have run without starting. */
const CALL_LINE_CHECK_MS = 20;
/** Spacing of the looks for a shell at a prompt that printed no mark (see watchForPrompt). */
const PROMPT_WATCH_MS = 40;
/** Re-installations of the integration tried for one call before the shell is reset. */
const MAX_REPAIRS = 1;

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

/** A switch of line editing whose prompt never came is given up after this long. */
const EDITING_SWITCH_LIMIT_MS = 2000;

export type { DisplayChunk } from './shell-display.ts';

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

/**
 * The prompt's life between two commands: `due` after a command ended (its prompt is still
 * to come), `drawing` from the prompt's first mark, `shown` from its last, `none` once the
 * next command started.
 */
type PromptPhase = 'due' | 'drawing' | 'shown' | 'none';

/** The command that holds the terminal: what `info()` reports as current, and since when. */
interface ForegroundCommand {
  readonly nonce: string;
  readonly command: string;
  readonly since: Date;
}

export class Shell {
  readonly id: string;
  readonly owner: ShellOwner | null;
  readonly startedAt = new Date();
  /** How and when the shell ended (the first cause wins); null while it runs. */
  private endingValue: SessionEnding | null = null;
  private endedAtValue: Date | null = null;
  /** Anything `info()` reports changed (state, command, controller, viewers, size). */
  readonly onChange = new Emitter<void>();
  readonly onCallStarted = new Emitter<CallStart>();
  readonly onCallFinished = new Emitter<CallInfo>();
  readonly onResize = new Emitter<{ cols: number; rows: number }>();
  private stateValue: SessionState = 'starting';
  /** When `stateValue` last changed: the web app times a wait for input from it. */
  private stateSinceValue = new Date();
  private readonly pty: ShellProcess;
  private readonly scanner: MarkScanner;
  /** Set for dialects whose shell asks where the cursor is (see ShellDialect). */
  private readonly cursorQueries: CursorQueryScanner | null;
  /** The launch ran the integration: the install line is typed only to repair. */
  private readonly launchIntegrated: boolean;
  private readonly output: ShellDisplay;
  private readonly context: DialectContext;
  private readonly disposables = new DisposableStore();
  private readonly ready: Promise<void>;
  private markReady!: () => void;
  private failStart!: (error: Error) => void;
  private ttyPath = '';
  /** The process the last call left waiting for input, if that is how it ended. */
  private waitingPid = 0;
  /** Input was typed to the shell's own line reader, which echoes it: hide up to its LF. */
  private hidingHostEcho = false;
  private run: CallRun | null = null;
  private foreground: ForegroundCommand | null = null;
  private lastExitCode: number | null = null;
  /** Where the shell is in printing its prompt (the installation's first prompt is due). */
  private prompt: PromptPhase = 'due';
  /** The dialect's line editing is switched on for a human (see `switchEditing`). */
  private humanEditing = false;
  /** A line of our own runs: what it displays, up to its prompt's end, is hidden. */
  private hideUntilPrompt = false;
  private promptWaiters: (() => void)[] = [];
  /** A call line is to be typed as soon as the prompt is shown. */
  private lineDue = false;
  /** A call line was typed and its start mark has not arrived yet. */
  private awaitingStart = false;
  /** The integration's ready mark was seen: what follows is the shell's display. */
  private installed = false;
  /** Times the integration was re-installed for the call being started. */
  private repairs = 0;
  /** Pending look at whether a call line ran without starting (see checkCallLine). */
  private lineCheck: NodeJS.Timeout | undefined;
  /** Pending look for a prompt that printed no mark (see watchForPrompt). */
  private promptWatch: NodeJS.Timeout | undefined;
  private installLine = '';
  /** The dialect's line that runs one call in this shell. */
  private readonly callLine: string;
  /** A human at the controls, when one takes them. */
  readonly human: HumanControl;
  private viewerCount = 0;
  private size: { cols: number; rows: number };
  private agentId: string | null;

  constructor(private readonly options: ShellOptions) {
    this.id = options.id;
    this.agentId = options.agent;
    this.owner = options.owner ?? null;
    this.ready = new Promise((resolve, reject) => {
      this.markReady = resolve;
      this.failStart = reject;
    });
    this.ready.catch(() => undefined);
    const nonce = markNonce(randomBytes(16));
    const privateDir = privateDirectory();
    this.context = {
      privateDir,
      nonce,
      tag: randomBytes(4).toString('hex'),
      commandFile: join(privateDir, 'command'),
    };
    this.callLine = options.dialect.callLine(this.context);
    this.scanner = new MarkScanner(nonce);
    this.cursorQueries = options.dialect.answersCursorQueries ? new CursorQueryScanner() : null;
    this.output = new ShellDisplay(options.cols, options.rows);
    this.size = { cols: options.cols, rows: options.rows };
    this.human = new HumanControl(this.controlledShell());
    const launch = options.dialect.launch(this.context);
    this.launchIntegrated = launch.integrated === true;
    try {
      this.pty = new ShellProcess(options.launcher, {
        file: launch.file,
        args: launch.args,
        leadsProcessGroup: launch.leadsProcessGroup,
        env: shellEnvironment(options.baseEnv, { pass: options.envPass, extra: launch.env }),
        cols: options.cols,
        rows: options.rows,
        workspace: options.workspace,
        privateDir,
        readable: options.readable,
      });
    } catch (error) {
      rmSync(privateDir, { recursive: true, force: true });
      throw new JumpseatError(
        JUMPSEAT_ERR_SHELL_UNAVAILABLE,
        `could not start ${options.dialect.name}: ${(error as Error).message}`,
      );
    }
    this.disposables.add(this.pty.onData((chunk) => this.onPtyData(chunk)));
    this.disposables.add(this.pty.onExit((exit) => void this.onPtyExit(exit)));
    void this.install();
  }

  get dialect(): ShellDialect {
    return this.options.dialect;
  }

  /** The agent whose shell this is; null while it is a person's own shell. */
  get agent(): string | null {
    return this.agentId;
  }

  /**
   * Makes a person's shell an agent's (the registry checks the agent has no live shell of
   * this dialect). It stays the person's until they release the controls.
   */
  assignAgent(agent: string): void {
    this.agentId = agent;
    this.onChange.fire();
  }

  get state(): SessionState {
    return this.stateValue;
  }

  /** The shell process itself, as the host numbers it (inside a sandbox it is a child of
   *  the PTY's process). */
  get pid(): number {
    return this.pty.pid;
  }

  get alive(): boolean {
    return this.stateValue !== 'exited';
  }

  /** Resolves when the integration is installed and the first prompt is up. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /**
   * Resolves true once the shell is ready, false if `deadlineAt` (epoch ms) comes first;
   * rejects as `whenReady` does when the shell cannot start.
   */
  async readyBy(deadlineAt: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, deadlineAt - Date.now()));
    });
    try {
      return await Promise.race([this.ready.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A call whose deadline passed while the shell was still starting: the shell is reset,
   *  and the result says the call timed out (its command never ran). */
  async startTimedOut(): Promise<ShellCallResult> {
    await this.reset();
    const output = await this.options.newCapture(this.agentId ?? '').finish();
    return { ending: { kind: 'timeout' }, output, humanSummary: null };
  }

  /**
   * Runs one call: a new command when the shell is at its prompt, or one line of input
   * for the program that waits on the terminal. `signal` aborting cancels the call. The
   * deadline (epoch ms) is the call's, counted from before the shell started if it had to.
   * Throws ShellGoneError when the shell died before the command began: it never ran.
   */
  async execute(
    command: string,
    signal: AbortSignal,
    deadlineAt = Date.now() + this.options.timeoutMs,
  ): Promise<ShellCallResult> {
    await this.ready;
    if (this.run) throw new Error('a call is already running on this shell');
    if (!this.alive || !this.pty.running) throw new ShellGoneError();
    this.human.refuseAgent();
    await this.human.handedBack();
    // Editing left on (the human released with a program running): off before the agent types.
    await this.switchEditing();
    // Typed to a waiting program only if it still waits: it may have just ended (a person
    // answered it), its end mark still unread; what the terminal holds is read first.
    if (this.stateValue === 'waiting_input' && this.foreground) await this.pty.quiet();
    this.human.refuseAgent();
    if (this.run) throw new Error('a call is already running on this shell');
    const run = new CallRun({
      capture: this.options.newCapture(this.agentId ?? ''),
      timeoutMs: Math.max(0, deadlineAt - Date.now()),
      probe: () => findWaitingReader(this.pid, this.ttyPath),
      screenText: () => this.screenText(),
      // Never reset under a human's hands: a call cancelled while they hold the controls is
      // dropped, and the shell stays theirs.
      reset: () => (this.human.controller ? Promise.resolve() : this.reset()),
      quiet: () => this.pty.quiet(),
    });
    this.run = run;
    const onAbort = () => void run.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    else if (this.stateValue === 'waiting_input' && this.foreground) this.typeInput(command, run);
    else this.typeCommand(command);
    this.onCallStarted.fire({ command, startedAt: new Date().toISOString() });
    try {
      const result = await run.result;
      // Only a shell that ended on its own (not reset by the engine) is replaced unseen, and
      // never run twice: only a command file still unread proves the command did not run.
      if (
        result.ending.kind === 'shell_exit' &&
        this.endingValue?.kind !== 'reset' &&
        !run.hasStarted &&
        this.commandUnread()
      ) {
        throw new ShellGoneError();
      }
      this.afterCall(result);
      const humanSummary = result.ending.kind === 'cancelled' ? null : this.human.takeSummary();
      return { ...result, humanSummary };
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.run = null;
    }
  }

  /** Ends the whole process tree; the shell is then `exited`. */
  async reset(cause: Extract<SessionEndingKind, 'reset' | 'closed'> = 'reset'): Promise<void> {
    this.endingValue ??= { kind: cause, exitCode: null, signal: null };
    await this.endTree();
    this.setState('exited');
  }

  private endTree(): Promise<void> {
    return this.pty.endTree();
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
    this.onCallFinished.fire(call);
  }

  /** How many people watch (kept by the live hub, reported in `info()`). */
  set viewers(count: number) {
    if (count === this.viewerCount) return;
    this.viewerCount = count;
    this.onChange.fire();
  }

  /** What human control may do with this shell (see ControlledShell). */
  private controlledShell(): ControlledShell {
    const shell = this;
    return {
      get alive() {
        return shell.alive;
      },
      get personal() {
        return shell.agentId === null;
      },
      get ttyPath() {
        return shell.ttyPath;
      },
      get pid() {
        return shell.pid;
      },
      get commandInForeground() {
        return shell.foreground !== null;
      },
      answersCursorQueries: this.options.dialect.answersCursorQueries,
      cursorLineText: () => this.output.cursorLineText(),
      switchEditing: () => this.switchEditing(),
      write: (keys) => this.pty.write(keys),
      unwrittenBytes: () => this.pty.unwrittenBytes(),
      dropUnwritten: () => this.pty.dropUnwritten(),
      pauseCall: () => this.run?.pause(),
      resumeCall: () => this.run?.resume(),
      resize: (size) => this.resizeTo(size ?? { cols: this.options.cols, rows: this.options.rows }),
      adoptHumanCommand: () => this.adoptHumanCommand(),
      changed: () => this.onChange.fire(),
    };
  }

  private resizeTo({ cols, rows }: { cols: number; rows: number }): void {
    if (!this.alive || (cols === this.size.cols && rows === this.size.rows)) return;
    this.size = { cols, rows };
    this.pty.resize(cols, rows);
    this.output.resize(cols, rows);
    this.onResize.fire({ cols, rows });
    this.onChange.fire();
  }

  /**
   * After release, a program the human started may still hold the terminal (an editor, a
   * REPL, a long job). The agent's next call is then typed to it as input, as for a program
   * an agent call left waiting, and the shell's next prompt ends it.
   */
  private async adoptHumanCommand(): Promise<void> {
    if (this.run || this.foreground || !this.alive) return;
    // Any foreground group other than the shell's own is a job it runs.
    const stat = await readStat(this.pid);
    if (!stat || stat.tpgid === stat.pgrp || this.run || this.foreground || !this.alive) return;
    this.foreground = { nonce: '', command: 'a program a human started', since: new Date() };
    this.setState('waiting_input');
  }

  info(): SessionInfo {
    return {
      id: this.id,
      agent: this.agentId,
      owner: this.owner?.name ?? null,
      ...(this.owner === null ? {} : { ownerId: this.owner.tokenId }),
      dialect: this.options.dialect.name,
      state: this.human.controller && this.alive ? 'human_control' : this.stateValue,
      command: this.foreground?.command ?? null,
      since: this.foreground?.since.toISOString() ?? null,
      stateSince: this.stateSinceValue.toISOString(),
      lastExitCode: this.lastExitCode,
      pid: this.alive ? this.pid : null,
      cols: this.size.cols,
      rows: this.size.rows,
      controller: this.human.controller?.name ?? null,
      viewers: this.viewerCount,
      startedAt: this.startedAt.toISOString(),
      endedAt: this.endedAtValue?.toISOString() ?? null,
      ending: this.endingValue,
    };
  }

  /** Frees everything; ends the process tree if it still runs. */
  async dispose(): Promise<void> {
    if (this.alive) await this.reset('closed');
    clearTimeout(this.lineCheck);
    clearTimeout(this.promptWatch);
    this.disposables.dispose();
    this.output.dispose();
    for (const emitter of [
      this.onChange,
      this.onCallStarted,
      this.onCallFinished,
      this.human.onControl,
      this.human.onInterrupt,
      this.human.onInput,
      this.onResize,
    ]) {
      (emitter as Emitter<unknown>).clear();
    }
    rmSync(this.context.privateDir, { recursive: true, force: true });
  }

  private async install(): Promise<void> {
    const timer = setTimeout(() => {
      this.failStart(
        new JumpseatError(
          JUMPSEAT_ERR_SHELL_UNAVAILABLE,
          `${this.options.dialect.name} did not become ready within ${START_TIMEOUT_MS / 1000} s`,
        ),
      );
      void this.reset();
    }, START_TIMEOUT_MS);
    this.ready.finally(() => clearTimeout(timer)).catch(() => undefined);
    try {
      this.installLine = await this.options.dialect.install(this.context);
      if (!this.launchIntegrated) this.pty.write(this.installLine);
    } catch (error) {
      this.failStart(
        new JumpseatError(JUMPSEAT_ERR_SHELL_UNAVAILABLE, `shell set-up failed: ${String(error)}`),
      );
      void this.reset();
    }
  }

  private typeCommand(command: string): void {
    const nonce = markNonce(randomBytes(12));
    writeFileSync(this.context.commandFile, commandFileContent(nonce, command), { mode: 0o600 });
    this.foreground = { nonce, command, since: new Date() };
    this.awaitingStart = true;
    this.setState('running');
    // Typed at the prompt, as a person would: typed earlier, a terminal with echo on (a
    // command ran `stty echo`) would show the line before the prompt, where it is not hidden.
    if (this.prompt === 'shown') this.pty.write(this.callLine);
    else {
      this.lineDue = true;
      this.watchForPrompt();
    }
  }

  private typeInput(command: string, run: CallRun): void {
    this.display(inputEcho(command));
    this.hidingHostEcho =
      this.options.dialect.hostEchoesInput &&
      this.waitingPid === this.pty.pid &&
      !isControlKey(command);
    this.setState('running');
    run.start();
    this.pty.write(keystrokesFor(command));
  }

  private afterCall(result: CallResult): void {
    switch (result.ending.kind) {
      case 'waiting_input':
        this.waitingPid = result.ending.pid;
        if (this.alive) this.setState('waiting_input');
        break;
      case 'completed':
        break;
      default:
        this.foreground = null;
    }
  }

  private onPtyData(chunk: Buffer): void {
    for (const piece of this.scanner.push(chunk)) {
      if ('mark' in piece) this.onMark(piece.mark);
      else this.onBytes(piece.data);
    }
    // Answered even before the integration is ready: pwsh asks at its very first prompt.
    const queries = this.cursorQueries?.push(chunk) ?? 0;
    for (let i = 0; i < queries; i++) void this.answerCursorQuery();
  }

  private onBytes(data: Buffer): void {
    if (!this.installed) return; // integration set-up noise
    if (this.hidingHostEcho) {
      const lineEnd = data.indexOf(0x0a);
      if (lineEnd === -1) return;
      this.hidingHostEcho = false;
      data = data.subarray(lineEnd + 1);
      if (data.length === 0) return;
    }
    if (!this.hiding) this.display(data);
    this.run?.write(data);
  }

  /**
   * Tells the shell where the cursor is, as the screen viewers see shows it. Hidden bytes
   * (the call line's echo) are not on that screen, so the shell's idea of its line may be
   * off by them; only its own redraws of a line it reads depend on it.
   */
  private async answerCursorQuery(): Promise<void> {
    const { row, col } = await this.output.cursor();
    if (!this.alive) return;
    try {
      this.pty.write(cursorReport(row, col));
    } catch {
      // The PTY closed meanwhile: nobody is waiting for the answer.
    }
  }

  /**
   * Bytes between typing a call line and its start mark (an echoed wrapper, a trace) are
   * hidden, all but the prompt itself: with the terminal's echo on (`stty echo`), the kernel
   * echoes the line at once, before a slow shell may even have printed its prompt.
   */
  private get hiding(): boolean {
    return (this.awaitingStart && this.prompt !== 'drawing') || this.hideUntilPrompt;
  }

  /** At its prompt with nothing typed, running or due: a line of our own may be typed. */
  private get atPrompt(): boolean {
    return (
      this.alive &&
      this.prompt === 'shown' &&
      !this.foreground &&
      !this.run &&
      !this.awaitingStart &&
      !this.lineDue &&
      !this.hideUntilPrompt
    );
  }

  /**
   * Switches the dialect's line editing to what the controls call for (on for a human, off
   * for the agent) when the shell is at its prompt; resolves once the new prompt is up.
   */
  private async switchEditing(): Promise<void> {
    const lines = this.options.dialect.humanEditing;
    // A person's own shell keeps its line editing, with or without someone at the controls.
    const wanted = this.human.controller !== null || this.agentId === null;
    if (!lines || wanted === this.humanEditing || !this.atPrompt) return;
    this.humanEditing = wanted;
    this.hideUntilPrompt = true;
    const shown = new Promise<void>((resolve) => this.promptWaiters.push(resolve));
    this.pty.write(wanted ? lines.on : lines.off);
    let limit: NodeJS.Timeout | undefined;
    await Promise.race([
      shown,
      new Promise((resolve) => {
        limit = setTimeout(resolve, EDITING_SWITCH_LIMIT_MS);
      }),
    ]);
    clearTimeout(limit);
  }

  private onMark(mark: Mark): void {
    switch (mark.event) {
      case 'R':
        if (this.installed) break; // a repair re-installed the integration
        this.installed = true;
        // The mark carries the shell's pid as the shell sees it (in a sandbox, its namespace's).
        void this.pty.locate(/^\d+$/.test(mark.data) ? Number(mark.data) : null).then(({ tty }) => {
          this.ttyPath = tty;
          this.setState('idle');
          this.markReady();
        });
        break;
      case 'A':
        // The prompt string's first mark: bash prints it itself, so it comes even when a
        // command broke post. It carries the call's nonce, its status (`I` when the line was
        // cut short, as by an interrupt) and `$?`.
        this.promptComes(mark.data);
        this.prompt = 'drawing';
        break;
      case 'H':
        // The prompt hook, when no prompt will show (stderr is not the terminal, or a
        // read-only PS1 cannot carry marks): the shell is about to read its next line.
        this.promptComes(mark.data);
        this.prompt = 'drawing';
        this.promptShown();
        break;
      case 'B':
        // Only the prompt being drawn: after a repair, the failed prompt's end does not count.
        if (this.prompt === 'drawing') this.promptShown();
        break;
      case 'X':
        // The integration's own variables were given attributes (`readonly`, `-i`): only a
        // new shell can run calls again.
        if (this.foreground && this.awaitingStart) this.run?.shellBroken();
        break;
      case 'S':
        if (mark.data !== this.foreground?.nonce) break;
        this.awaitingStart = false;
        this.repairs = 0;
        this.prompt = 'none';
        this.display(commandEcho(this.foreground.command));
        this.run?.start();
        break;
      case 'E': {
        const [nonce, status] = mark.data.split(';');
        if (nonce !== this.foreground?.nonce) break;
        this.commandEnded(Number(status));
        this.prompt = 'due';
        break;
      }
    }
  }

  /**
   * A prompt is about to be drawn. After a call's end mark that is expected. Otherwise, with
   * a command in the foreground: if it started, the line was cut short or post was broken,
   * and the prompt's data says how the command ended; if it did not start, see checkCallLine.
   */
  private promptComes(data: string): void {
    const expected = this.prompt === 'due';
    if (expected || !this.foreground) return;
    if (this.awaitingStart) {
      // Either the line ran and failed, or the prompt answers input left over from a
      // program (the Enter after `q` in less) and our line is still to be read. Only the
      // shell back at reading the terminal, the line still not started, tells the two apart.
      this.checkCallLine();
      return;
    }
    const [nonce, status, last] = data.split(';');
    if (nonce === this.foreground.nonce && status !== undefined && /^\d+$/.test(status)) {
      this.commandEnded(Number(status));
      return;
    }
    const lastStatus = Number(last);
    this.commandEnded(lastStatus > 0 ? lastStatus : INTERRUPTED_STATUS);
  }

  /** The prompt is up: a human may type, and a call line that waits for it goes. */
  private promptShown(): void {
    this.prompt = 'shown';
    if (this.hideUntilPrompt) {
      this.hideUntilPrompt = false;
      for (const resolve of this.promptWaiters.splice(0)) resolve();
    } else {
      void this.human.backAtPrompt();
    }
    if (this.lineDue) {
      this.lineDue = false;
      this.pty.write(this.callLine);
    }
  }

  /**
   * A call line waits for the prompt, but a prompt may come without marks: the command
   * closed stderr (`exec 2>&-`: no prompt reaches the terminal, and the hook's redirection
   * fails) or broke the hook. The shell itself blocked reading the terminal, twice in a row,
   * is at its prompt whatever it printed: the line goes then.
   */
  private watchForPrompt(): void {
    if (this.promptWatch !== undefined) return;
    let sightings = 0;
    const look = async (): Promise<void> => {
      const reader = await findWaitingReader(this.pid, this.ttyPath).catch(() => null);
      this.promptWatch = undefined;
      if (!this.lineDue || !this.alive || this.prompt === 'shown') return;
      sightings = reader?.pid === this.pty.pid ? sightings + 1 : 0;
      if (sightings >= 2) {
        this.promptShown();
        return;
      }
      this.promptWatch = setTimeout(() => void look(), PROMPT_WATCH_MS);
    };
    this.promptWatch = setTimeout(() => void look(), PROMPT_WATCH_MS);
  }

  /** Looks, until the call starts, for the shell reading the terminal with the line unstarted. */
  private checkCallLine(): void {
    if (this.lineCheck !== undefined) return;
    let sightings = 0;
    const check = async (): Promise<void> => {
      const reader = await findWaitingReader(this.pid, this.ttyPath).catch(() => null);
      if (!this.awaitingStart || !this.foreground || !this.alive) {
        this.lineCheck = undefined;
        return;
      }
      // Twice in a row, as for waiting input: the start mark may still be on its way to us.
      sightings = reader?.pid === this.pty.pid ? sightings + 1 : 0;
      if (sightings >= 2) {
        this.lineCheck = undefined;
        this.callLineFailed();
        return;
      }
      this.lineCheck = setTimeout(() => void check(), CALL_LINE_CHECK_MS);
    };
    this.lineCheck = setTimeout(() => void check(), CALL_LINE_CHECK_MS);
  }

  /**
   * The call line ran but the call never started: a command removed part of the integration.
   * If the command file is still unread the command did not run, so re-install and retype
   * once; otherwise (it ran, its marks were lost) or on a second failure, reset the shell.
   */
  /** The integration empties the command file once it has read it (see the dialects). */
  private commandUnread(): boolean {
    return (statSync(this.context.commandFile, { throwIfNoEntry: false })?.size ?? 0) > 0;
  }

  private callLineFailed(): void {
    if (this.commandUnread() && this.repairs < MAX_REPAIRS) {
      this.repairs++;
      this.prompt = 'due';
      this.pty.write(this.installLine);
      this.pty.write(this.callLine);
      return;
    }
    this.run?.shellBroken();
  }

  private commandEnded(exitCode: number): void {
    this.foreground = null;
    this.lastExitCode = exitCode;
    this.setState('idle');
    this.run?.complete(exitCode);
  }

  private display(data: Buffer): void {
    this.output.show(data);
  }

  private async onPtyExit(exit: PtyExit): Promise<void> {
    this.endingValue ??= exit.signal
      ? { kind: 'killed', exitCode: null, signal: exit.signal }
      : { kind: 'exited', exitCode: exit.code, signal: null };
    await this.pty.quiet();
    const rest = this.scanner.flush();
    if (rest.length) this.onBytes(rest);
    this.failStart(
      new JumpseatError(
        JUMPSEAT_ERR_SHELL_UNAVAILABLE,
        `${this.options.dialect.name} exited during start-up (${describeExit(exit)})`,
      ),
    );
    // Jobs the shell left behind belong to its tree: the reset the result announces ends
    // them before the agent reads it.
    await this.endTree();
    this.setState('exited');
    this.run?.shellExited(exit.code, exit.signal);
  }

  private setState(state: SessionState): void {
    if (this.stateValue === state || this.stateValue === 'exited') return;
    this.stateValue = state;
    this.stateSinceValue = new Date();
    if (state === 'exited') {
      this.endedAtValue = new Date();
      this.human.shellExited();
      // An ended shell keeps its info and history, not its screen model (issue 15).
      this.output.freezeWhenQuiet();
    }
    this.onChange.fire();
  }
}

function describeExit(exit: PtyExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `code ${exit.code}`;
}

/** A new mode-700 directory for the shell's integration and command files (mkdtemp makes it
 *  private); a full or read-only temporary directory is said as such. */
function privateDirectory(): string {
  try {
    return mkdtempSync(join(tmpdir(), 'jumpseat-'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new JumpseatError(
      JUMPSEAT_ERR_SHELL_UNAVAILABLE,
      `cannot make the shell's private directory in ${tmpdir()} (${code})`,
    );
  }
}
