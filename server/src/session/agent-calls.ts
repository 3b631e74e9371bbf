/**
 * The agent's calls on one shell, one at a time: a new command typed at the prompt (through
 * the call line), or one line of input for the program that waits on the terminal; the
 * call's run from its start to its result, and what the result leaves the shell in.
 */

import { commandFileContent, type ShellDialect } from '../pty/dialect.ts';
import { callNonce } from '../pty/marks.ts';
import { readCallsNow } from '../pty/proc-probe.ts';
import { findWaitingReader } from '../pty/terminal-wait.ts';
import type { CallLine } from './call-line.ts';
import { CallRun, type WaitingProcess } from './call-run.ts';
import type { CallResult, CaptureFactory } from './capture.ts';
import type { HumanControl } from './human-control.ts';
import { type PersonExec, takePersonExec } from './person-exec.ts';
import type { ShellFiles } from './shell-files.ts';
import { ShellImage } from './shell-image.ts';
import { type CallStart, type ShellCallResult, ShellGoneError } from './shell-options.ts';
import type { ShellProcess } from './shell-process.ts';
import type { ShellStatus } from './shell-status.ts';
import { inputEcho, isControlKey, keystrokesFor } from './typing.ts';

/** The shell's pieces the agent's calls use. */
export interface AgentCallParts {
  readonly status: ShellStatus;
  readonly pty: ShellProcess;
  readonly files: ShellFiles;
  readonly calls: CallLine;
  readonly human: HumanControl;
  readonly dialect: ShellDialect;
  readonly newCapture: CaptureFactory;
  /** Resolves when the shell is ready (see ShellStartUp). */
  readonly ready: Promise<void>;
}

/** What only the shell itself knows or does. */
export interface AgentCallHost {
  /** The agent whose shell this is ('' for a person's own shell's captures). */
  readonly agent: string | null;
  /** The engine itself reset the shell (a reset, not its own ending). */
  readonly resetByEngine: boolean;
  /** Line editing as the controls call for (off for the agent). */
  switchEditing(): Promise<void>;
  screenText(): Promise<string>;
  reset(): Promise<void>;
  display(data: Buffer): void;
  /** Hide the echo of the input line typed to the shell's own line reader, or not. */
  hideHostEcho(hide: boolean): void;
  started(call: CallStart): void;
}

export class AgentCalls {
  private runValue: CallRun | null = null;
  /** The process the last call left waiting for input, if that is how it ended. */
  private waitingPid = 0;
  /** The program the shell process runs (a command may exec a fresh shell). */
  private readonly image: ShellImage;

  constructor(
    private readonly parts: AgentCallParts,
    private readonly host: AgentCallHost,
  ) {
    this.image = new ShellImage(() => parts.pty.pid, parts.dialect);
  }

  /** The integration is installed and the shell located (its ready mark). */
  integrationInstalled(): void {
    this.image.installed();
  }

  /** A person's controls were handed back: what they may have exec'd (see person-exec.ts). */
  afterPerson(): Promise<PersonExec> {
    const { calls, status } = this.parts;
    if (this.runValue || calls.foreground || !status.alive) return Promise.resolve('installed');
    return takePersonExec({ ...this.parts, image: this.image });
  }

  /** The call in flight, if any. */
  get run(): CallRun | null {
    return this.runValue;
  }

  /** A call whose deadline passed while the shell was still starting: the shell is reset,
   *  and the result says the call timed out (its command never ran). */
  async startTimedOut(): Promise<ShellCallResult> {
    await this.host.reset();
    const output = await this.parts.newCapture(this.host.agent ?? '').finish();
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
    deadlineAt: number,
  ): Promise<ShellCallResult> {
    const { status, pty, files, calls, human } = this.parts;
    const host = this.host;
    await this.parts.ready;
    if (this.runValue) throw new Error('a call is already running on this shell');
    // A shell that died but whose exit is not announced yet (its last output is read first)
    // is typed to all the same: its exit then ends the run unstarted, and the command runs in
    // a new shell (see below). A look at /proc here cost every call a read of its stat.
    if (!status.alive) throw new ShellGoneError();
    human.refuseAgent();
    await human.handedBack();
    // Editing left on (the human released with a program running): off before the agent types.
    await host.switchEditing();
    // Typed to a waiting program only if it still waits: it may have just ended (a person
    // answered it), its end mark still unread; what the terminal holds is read first.
    if (status.state === 'waiting_input' && calls.foreground) await pty.quiet();
    human.refuseAgent();
    if (this.runValue) throw new Error('a call is already running on this shell');
    // The waits above (for the prompt after a call, up to 2 s) may have seen the shell end:
    // its exit told no run, and a run made now would wait for an end that never comes.
    if (!status.alive) throw new ShellGoneError();
    const run = new CallRun({
      capture: this.parts.newCapture(host.agent ?? ''),
      timeoutMs: Math.max(0, deadlineAt - Date.now()),
      probe: () => this.waitingReader(),
      screenText: () => host.screenText(),
      // Never reset under a human's hands: a call cancelled while they hold the controls is
      // dropped, and the shell stays theirs.
      reset: () => (human.controller ? Promise.resolve() : host.reset()),
      quiet: () => pty.quiet(),
      endRecorded: () => files.commandEndRecorded(),
      readCalls: readCallsNow,
      // A shell stopped between calls never reads the line: the probes start with the command.
      beforeStart: () => void pty.continueIfStopped(),
    });
    this.runValue = run;
    const onAbort = () => void run.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    else if (status.state === 'waiting_input' && calls.foreground) this.typeInput(command, run);
    else this.typeCommand(command);
    host.started({ command, startedAt: new Date().toISOString() });
    try {
      const result = await run.result;
      // Only a shell that ended on its own (not reset by the engine) is replaced unseen, and
      // never run twice: only a command file still unread proves the command did not run.
      if (
        result.ending.kind === 'shell_exit' &&
        !host.resetByEngine &&
        !run.hasStarted &&
        !calls.cancelled &&
        !files.commandTaken()
      ) {
        throw new ShellGoneError();
      }
      this.afterCall(result);
      const humanSummary = result.ending.kind === 'cancelled' ? null : human.takeSummary();
      return { ...result, humanSummary };
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.runValue = null;
    }
  }

  /**
   * The program blocked reading the terminal, unless it is a fresh shell the command exec'd
   * (`exec bash`): that one is given the integration, and the call ends at its prompt.
   */
  private async waitingReader(): Promise<WaitingProcess | null> {
    const { pty, status, calls } = this.parts;
    const stat = pty.stat();
    pty.continueIfStopped(stat);
    const reader = await findWaitingReader(stat, status.ttyPath);
    if (reader === null || !this.image.freshShell(reader)) return reader;
    // Its prompt, printed before it blocked, is read first: the call's output ends with it.
    await pty.quiet();
    calls.reinstall();
    return null;
  }

  private typeCommand(command: string): void {
    const nonce = callNonce();
    this.parts.files.writeCommand(nonce, commandFileContent(nonce, command));
    this.parts.calls.type(nonce, command);
  }

  private typeInput(command: string, run: CallRun): void {
    this.host.display(inputEcho(command));
    this.host.hideHostEcho(
      this.parts.dialect.hostEchoesInput &&
        this.waitingPid === this.parts.pty.pid &&
        !isControlKey(command),
    );
    this.parts.status.set('running');
    run.typedTo(this.waitingPid);
    run.start();
    this.parts.pty.write(keystrokesFor(command));
  }

  private afterCall(result: CallResult): void {
    this.parts.calls.callOver();
    switch (result.ending.kind) {
      case 'waiting_input':
        this.waitingPid = result.ending.pid;
        if (this.parts.status.alive) this.parts.status.set('waiting_input');
        break;
      case 'completed':
        break;
      default:
        this.parts.calls.drop();
    }
  }
}
