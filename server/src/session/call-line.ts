/**
 * The prompt and call-line state machine of one shell: which command holds the terminal,
 * where the shell is in printing its prompt, and the call line's way from being typed to its
 * command's start ('S') and end ('E') marks, with the prompt marks ('A', 'H', 'B') around
 * them. It also tells a call line that ran without starting, a prompt that printed no mark,
 * and a forged end mark. The shell lends it the few operations this needs (`CallLineHost`).
 */
import type { Mark } from '../pty/marks.ts';
import { jobHoldsTerminal } from '../pty/terminal-holder.ts';
import { interruptForeground } from '../pty/terminal-mode.ts';
import { interruptCommand } from './call-interrupt.ts';
import type { CallLineHost, ForegroundCommand } from './call-line-host.ts';
import { CallLineRepair } from './call-line-repair.ts';
import { EndConfirm, EndDoubt } from './end-doubt.ts';
import { FreshShellInstall } from './fresh-shell-install.ts';
import { endMarkOf, INTERRUPTED_STATUS, promptOfOtherCall, promptStatusOf } from './mark-status.ts';
import { PromptWaits } from './prompt-waits.ts';
import { ReadingWatch } from './reading-watch.ts';
import type { ShellStatus } from './shell-status.ts';
import { commandEcho } from './typing.ts';

export type { CallLineHost, ForegroundCommand } from './call-line-host.ts';

/** Spacing of the looks for a shell at a prompt that printed no mark (see watchForPrompt). */
const PROMPT_WATCH_MS = 40;
/** What a shell shows running after a forged end mark (see confirmEnd). */
const FORGED_END_COMMAND = 'a program still in the foreground after its call ended';

/**
 * The prompt's life between two commands: `due` after a command ended (its prompt is still
 * to come), `drawing` from the prompt's first mark, `shown` from its last, `none` once the
 * next command started.
 */
type PromptPhase = 'due' | 'drawing' | 'shown' | 'none';

export class CallLine {
  private foregroundValue: ForegroundCommand | null = null;
  /** Where the shell is in printing its prompt (the installation's first prompt is due). */
  private prompt: PromptPhase = 'due';
  /** Lines of our own, hidden up to their prompt, and waits for the prompt (see promptUp). */
  private readonly waits = new PromptWaits();
  /** A call line is to be typed as soon as the prompt is shown. */
  private lineDue = false;
  /** A call line was typed and its start mark has not arrived yet. */
  private awaitingStart = false;
  /** An interrupt came before the call's command started: it is sent at the start mark. */
  private interruptDue = false;
  /**
   * The call's nonce before its command was cancelled (an interrupt before the start): its
   * start mark means the shell had read the command already, and it runs after all.
   */
  private cancelledNonce: string | null = null;
  /** A call line that ran without starting (see promptComes). */
  private readonly repair = new CallLineRepair({
    stat: () => this.host.stat(),
    ttyPath: () => this.status.ttyPath,
    commandUnread: () => this.host.commandUnread(),
    retype: () => {
      this.prompt = 'due';
      this.host.write(this.installLine);
      this.host.write(this.callLine);
    },
    broken: () => this.host.run?.shellBroken(),
  });
  /** Looks for a prompt that printed no mark (see watchForPrompt). */
  private readonly promptWatch = new ReadingWatch(
    () => this.host.stat(),
    () => this.status.ttyPath,
    PROMPT_WATCH_MS,
  );
  /** An end mark that came while a job held the terminal. */
  private readonly endDoubt = new EndDoubt(
    () => jobHoldsTerminal(this.host.stat()),
    (status) => {
      if (!this.status.alive) return;
      this.host.run?.dropHeldOutput();
      this.endAt(status);
    },
  );
  /** The looks again after a believed end (see confirmEnd). */
  private readonly endConfirm = new EndConfirm();
  /** The call's command exec'd a fresh shell: the integration goes in again (see there). */
  private readonly freshShell = new FreshShellInstall();

  /** The dialect's line that (re-)installs the integration, once it is prepared. */
  installLine = '';

  constructor(
    private readonly status: ShellStatus,
    /** The dialect's line that runs one call in this shell. */
    private readonly callLine: string,
    private readonly host: CallLineHost,
  ) {}

  /** The command that holds the terminal, if any. */
  get foreground(): ForegroundCommand | null {
    return this.foregroundValue;
  }

  /** The call's command was cancelled before it started (see interrupt). */
  get cancelled(): boolean {
    return this.cancelledNonce !== null;
  }

  /**
   * Bytes between typing a call line and its start mark (an echoed wrapper, a trace) are
   * hidden, all but the prompt itself: with the terminal's echo on (`stty echo`), the kernel
   * echoes the line at once, before a slow shell may even have printed its prompt.
   */
  get hiding(): boolean {
    return (this.awaitingStart && this.prompt !== 'drawing') || this.waits.hidingOwnLine;
  }

  /** At its prompt with nothing typed, running or due: a line of our own may be typed. */
  get atPrompt(): boolean {
    return (
      this.status.alive &&
      this.prompt === 'shown' &&
      !this.foregroundValue &&
      !this.host.run &&
      !this.awaitingStart &&
      !this.lineDue &&
      !this.waits.hidingOwnLine
    );
  }

  /** Prompts shown so far (a person's line has run, or left the shell, when this grows). */
  get promptsShown(): number {
    return this.waits.promptsShown;
  }

  /** Types a line of our own at the prompt (see PromptWaits.runOwnLine). */
  runOwnLine(line: string, limitMs: number): Promise<boolean> {
    return this.waits.runOwnLine(line, limitMs, (text) => this.host.write(text));
  }

  /**
   * Resolves once the prompt on its way after a command's end is up, or after `limitMs`; at
   * once when it is up already or a command runs.
   */
  promptUp(limitMs: number): Promise<void> {
    if (this.prompt !== 'due' && this.prompt !== 'drawing') return Promise.resolve();
    return this.waits.nextPrompt(limitMs);
  }

  /** The call `nonce` (its command file written) runs `command`: its line is typed. */
  type(nonce: string, command: string): void {
    this.foregroundValue = { nonce, command, since: new Date() };
    this.endDoubt.clear();
    this.awaitingStart = true;
    this.interruptDue = false;
    this.cancelledNonce = null;
    this.status.set('running');
    // Typed at the prompt, as a person would: typed earlier, a terminal with echo on (a
    // command ran `stty echo`) would show the line before the prompt, where it is not hidden.
    if (this.prompt === 'shown') this.host.write(this.callLine);
    else {
      this.lineDue = true;
      this.watchForPrompt();
    }
  }

  /** A program not started by a call line holds the terminal (a human's, see Shell). */
  adopt(command: string): void {
    this.foregroundValue = { nonce: '', command, since: new Date() };
  }

  /** The call is over and what held the terminal with it is no longer the agent's. */
  drop(): void {
    this.foregroundValue = null;
    this.endDoubt.clear();
  }

  /**
   * SIGINT for what holds the terminal. An agent's call whose command has not started yet
   * gets it at its start mark (sent now, it would hit the shell at its prompt, and the
   * command would run anyway); without an agent's command, only a job is interrupted (at
   * its prompt the shell has nothing to stop). Resolves whether the interrupt was taken.
   */
  async interrupt(): Promise<boolean> {
    const foreground = this.foregroundValue;
    if (foreground === null) return interruptForeground(this.host.pid, true);
    if (this.host.run && (this.awaitingStart || this.lineDue)) {
      // Cancelled unread, or, if the shell has read it already, interrupted as it starts.
      if (this.cancelledNonce === null) {
        this.cancelledNonce = foreground.nonce;
        this.foregroundValue = { ...foreground, nonce: this.host.cancelCommand() };
      }
      this.interruptDue = true;
      return true;
    }
    const run = this.host.run;
    return interruptCommand(
      this.host.pid,
      () => this.status.alive && this.foregroundValue === foreground,
      () => run?.shellInterrupted(),
      this.host.ownGroupInterrupt,
    );
  }

  /** The call's command exec'd a fresh shell of the dialect, at its prompt (see ShellImage). */
  reinstall(): void {
    const run = this.host.run;
    if (!run || run.settled || !this.foregroundValue) return;
    void this.waits.ownLineTyped();
    this.freshShell.begin(run, this.host.pid, this.installLine, (line) => this.host.write(line));
  }

  /** The call ended: an installation that did not bring its prompt hides nothing more. */
  callOver(): void {
    if (this.freshShell.abandon()) this.waits.ownLineLost();
  }

  /** Takes the prompt and call marks ('A', 'H', 'B', 'W', 'X', 'S', 'E'); others are ignored. */
  onMark(mark: Mark): void {
    const prompt = mark.event === 'A' || mark.event === 'H';
    if (prompt && this.foregroundValue && this.freshShell.prompted(this.host.run)) {
      this.commandEnded(0);
      this.confirmEnd();
      this.prompt = 'drawing';
      if (mark.event === 'H') this.promptShown();
      return;
    }
    switch (mark.event) {
      case 'A':
        if (this.forgedPrompt(mark.data)) break;
        // The prompt string's first mark: bash prints it itself, so it comes even when a
        // command broke post. It carries the call's nonce, its status (`I` when the line was
        // cut short, as by an interrupt) and `$?`.
        this.promptComes(mark.data);
        this.prompt = 'drawing';
        break;
      case 'H':
        if (this.forgedPrompt(mark.data)) break;
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
      case 'W':
        this.freshShell.measured(mark.data);
        break;
      case 'X':
        // The integration's own variables were given attributes (`readonly`, `-i`): only a
        // new shell can run calls again.
        if (this.foregroundValue && this.awaitingStart) this.host.run?.shellBroken();
        break;
      case 'S':
        this.commandStarted(mark.data);
        break;
      case 'E': {
        const { nonce, status } = endMarkOf(mark.data, this.host.run?.interrupted === true);
        if (nonce !== this.foregroundValue?.nonce) break;
        // A job holds the terminal: the command printed the mark, or the job came after it.
        if (jobHoldsTerminal(this.host.stat())) {
          this.host.run?.holdOutput();
          this.endDoubt.doubt(status);
          break;
        }
        // An end mark in doubt before this one was the command's: so was what followed it.
        this.host.run?.keepHeldOutput();
        this.endAt(status);
        break;
      }
    }
  }

  /** The shell ended: no prompt comes, and nobody waits for one. */
  shellExited(): void {
    this.waits.shellExited();
  }

  /** Stops the pending looks at the shell. */
  dispose(): void {
    this.endDoubt.clear();
    this.endConfirm.stop();
    this.repair.stop();
    this.promptWatch.stop();
  }

  private commandStarted(nonce: string): void {
    if (this.foregroundValue && nonce === this.cancelledNonce) {
      // The shell had read the command before it was cancelled: it runs, and is interrupted.
      this.foregroundValue = { ...this.foregroundValue, nonce };
      this.cancelledNonce = null;
    }
    if (nonce !== this.foregroundValue?.nonce) return;
    // The cancelled command (nothing) is what runs: the interrupt has nothing to stop.
    if (this.cancelledNonce !== null) this.interruptDue = false;
    this.awaitingStart = false;
    this.repair.started();
    this.prompt = 'none';
    this.host.display(commandEcho(this.foregroundValue.command));
    this.host.run?.start();
    if (this.interruptDue) {
      this.interruptDue = false;
      void this.interrupt();
    }
  }

  /**
   * A prompt is about to be drawn. After a call's end mark that is expected. Otherwise, with
   * a command in the foreground: if it started, the line was cut short or post was broken,
   * and the prompt's data says how the command ended; if it did not start, see CallLineRepair.
   */
  private promptComes(data: string): void {
    const expected = this.prompt === 'due';
    if (expected || !this.foregroundValue) return;
    if (this.awaitingStart) {
      // Either the line ran and failed, or the prompt answers input left over from a
      // program (the Enter after `q` in less) and our line is still to be read. Only the
      // shell back at reading the terminal, the line still not started, tells the two apart.
      this.repair.check(
        () => this.awaitingStart && this.foregroundValue !== null && this.status.alive,
      );
      return;
    }
    this.confirmEnd();
    this.commandEnded(promptStatusOf(data, this.foregroundValue.nonce));
  }

  /** The prompt is up: a human may type, and a call line that waits for it goes. */
  private promptShown(): void {
    this.prompt = 'shown';
    if (!this.waits.shown()) this.host.backAtPrompt();
    if (this.lineDue) {
      this.lineDue = false;
      this.host.write(this.callLine);
    }
  }

  /**
   * A call line waits for the prompt, but a prompt may come without marks: the command
   * closed stderr (`exec 2>&-`: no prompt reaches the terminal, and the hook's redirection
   * fails) or broke the hook. The shell itself reading its terminal is at its prompt.
   */
  private watchForPrompt(): void {
    this.promptWatch.start(
      () => this.lineDue && this.status.alive && this.prompt !== 'shown',
      () => this.promptShown(),
    );
  }

  /**
   * As for an end mark: a prompt drawn while a command's job holds the terminal is its; so is
   * one that names another call (promptOfOtherCall), whether or not its job is still alive.
   */
  private forgedPrompt(data: string): boolean {
    if (this.foregroundValue === null || this.awaitingStart) return false;
    return (
      promptOfOtherCall(data, this.foregroundValue.nonce) || jobHoldsTerminal(this.host.stat())
    );
  }

  /**
   * A forged end mark printed by the shell itself (`printf …; sleep 60`) comes before the job
   * that follows takes the terminal, so the check at the mark can miss it. Looked at again
   * shortly after: a job holding the terminal of an idle shell that no person holds is
   * a command still running, and the shell shows so (and the agent's next call is typed
   * behind it, as at a terminal), never `idle`.
   */
  private confirmEnd(): void {
    this.endConfirm.start(() => {
      const { host, status } = this;
      if (host.run || this.foregroundValue || !status.alive || status.state !== 'idle') return;
      // A person's job is theirs (a hand-back adopts what they leave running); a line of our
      // own (the editing switched for them) runs jobs of ours (`stty`).
      if (host.humanControlled || this.waits.hidingOwnLine) return;
      if (!jobHoldsTerminal(host.stat())) return;
      this.foregroundValue = { nonce: '', command: FORGED_END_COMMAND, since: new Date() };
      status.set('running');
    });
  }

  private endAt(status: number): void {
    this.commandEnded(status);
    this.prompt = 'due';
    this.confirmEnd();
  }

  private commandEnded(status: number): void {
    // Ended at its prompt with an end mark in doubt: what followed the mark was the prompt's.
    if (this.endDoubt.pending) this.host.run?.dropHeldOutput();
    this.endDoubt.clear();
    // A command cancelled before it ran ends as an interrupted one does.
    const exitCode = this.cancelledNonce === null ? status : INTERRUPTED_STATUS;
    this.foregroundValue = null;
    this.interruptDue = false;
    this.cancelledNonce = null;
    this.host.commandEnded(exitCode);
  }
}
