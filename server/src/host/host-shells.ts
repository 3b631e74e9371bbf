/**
 * The engine a host runs, as the link sees it: the same tool service, registry and shells the
 * server runs in-process, turned into link messages. Calls come down and their exact result
 * texts go up; each shell's news (opened, info, closed) and its output (through the outbox,
 * within its credit) go up. A result finished while the link is down is kept and sent once it
 * is back; the control plane drops what it no longer waits for.
 */
import { readdirSync } from 'node:fs';
import type { SessionInfo } from '../../../shared/src/api.ts';
import type {
  ControlMessage,
  HostMessage,
  LinkShell,
  LinkShellStory,
} from '../../../shared/src/link.ts';
import { AGENT_ID_REGEX } from '../../../shared/src/vocabulary.ts';
import { JUMPSEAT_ERR_INTERNAL, JumpseatError } from '../errors.ts';
import { LinkOutbox } from '../link/output-outbox.ts';
import { DisposableStore } from '../pty/disposable.ts';
import type { Shell } from '../session/shell.ts';
import type { EngineToolService } from '../tool/create-tool-service.ts';
import { HostFiles, type HostFilesPort } from './host-files.ts';

/**
 * A shell's info changes are sent at most this often (a fast agent changes state per call): the
 * first after a quiet spell at once (next turn, with the rest of that turn's changes), those
 * close behind it when the interval is out.
 */
const INFO_UPDATE_MS = 16;
/** Stories (calls, control changes, keys) kept for a link that is down, at most: a busy
 *  host's hour of calls; past it the oldest go (the agents had their answers). */
const MAX_KEPT_STORIES = 10_000;
/** Workspaces reported in the hello at most (placement needs the agents', not a census). */
const MAX_REPORTED_WORKSPACES = 10_000;

/**
 * Answers sent and not yet acknowledged, kept at most: past it the oldest go (a control plane
 * that never acknowledges must not make the host keep every answer). Answers the link has not
 * taken yet (it is down) are not counted: one per shell at most, each kept until it goes.
 */
const MAX_UNACKNOWLEDGED_ANSWERS = 1000;

/** What the engine needs of the link: send a message (false when down), and send output. */
export interface HostLinkPort extends HostFilesPort {
  send(message: HostMessage): boolean;
  /** Sends a message nobody waits for, with the link's next write or soon; false when down. */
  sendLater(message: HostMessage): boolean;
  pumpOutput(): void;
  /** The control plane acknowledges answers (`call_ack`): each is kept until then. */
  readonly acknowledgesAnswers: boolean;
}

interface RunningCall {
  readonly controller: AbortController;
  /**
   * The answer, once known, until the control plane acknowledged it, or (a control plane that
   * does not acknowledge) until the link took it. A socket takes a message although the link
   * died unnoticed: kept, the answer goes up again on the next link.
   */
  answer?: HostMessage;
}

export class HostShells {
  readonly outbox = new LinkOutbox();
  /** The saved outputs the control plane reads through the link. */
  readonly files: HostFiles;
  private readonly calls = new Map<string, RunningCall>();
  /** Ids of the calls whose answer went on a link and waits for its `call_ack`, oldest first. */
  private readonly unacknowledged = new Set<string>();
  /** Shells' stories told while the link was down, oldest first. */
  private keptStories: LinkShellStory[] = [];
  /** Stories sent on a link that acknowledges them (protocol 3), not acknowledged yet. */
  private unackedStories: LinkShellStory[] = [];
  /** Stories numbered so far (`seq`). */
  private storySeq = 0;
  private readonly watched = new Map<string, DisposableStore>();
  private readonly infoTimers = new Map<string, NodeJS.Timeout>();
  /** When each shell's info last went up (performance.now(), ms). */
  private readonly infoSent = new Map<string, number>();
  private readonly disposables = new DisposableStore();

  constructor(
    private readonly tools: EngineToolService,
    private readonly workspaceRoot: string,
    private readonly link: HostLinkPort,
  ) {
    this.files = new HostFiles(tools.spill.dir, link);
    for (const shell of tools.registry.shells()) this.watch(shell);
    this.disposables.add(tools.registry.onShellAdded.on((shell) => this.watch(shell)));
    this.disposables.add(tools.registry.onShellRemoved.on((shell) => this.unwatch(shell)));
  }

  /** Every shell the registry lists, for the hello. */
  shells(): LinkShell[] {
    return this.tools.registry.shells().map((shell) => ({
      info: shell.info(),
      offset: shell.displayOffset,
    }));
  }

  liveCount(): number {
    return this.tools.registry.shells().filter((shell) => shell.alive).length;
  }

  /** The agents whose workspace this host holds. */
  workspaces(): string[] {
    try {
      return readdirSync(this.workspaceRoot, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && AGENT_ID_REGEX.test(entry.name))
        .slice(0, MAX_REPORTED_WORKSPACES)
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  }

  /** Ids of the calls still running or holding an answer. */
  callIds(): string[] {
    return [...this.calls.keys()];
  }

  /** A message from the control plane (the welcome is the link's). */
  handle(message: ControlMessage): void {
    switch (message.type) {
      case 'call_start':
        this.startCall(message.callId, message.agent, message.dialect, message.command);
        break;
      case 'call_cancel':
        this.calls.get(message.callId)?.controller.abort(new Error('cancelled by the caller'));
        break;
      case 'call_ack': {
        if (this.unacknowledged.has(message.callId)) this.letGo(message.callId);
        const upTo = message.stories;
        if (upTo !== undefined)
          this.unackedStories = this.unackedStories.filter((story) => (story.seq ?? 0) > upTo);
        break;
      }
      case 'credit':
        this.outbox.ack(message.shellId, message.offset);
        this.link.pumpOutput();
        break;
      case 'shell_close':
        void this.tools.registry.find(message.shellId)?.reset();
        break;
      case 'resize':
      case 'input':
        // People at the controls come as relayed viewers (host-viewers.ts), not bare keys.
        break;
      case 'welcome':
      case 'refused':
      case 'viewer_open':
      case 'viewer_message':
      case 'viewer_close':
        // The link's, and the relayed viewers' (host-viewers.ts).
        break;
      case 'file_open':
      case 'file_read':
      case 'file_credit':
      case 'file_close':
        this.files.handle(message);
        break;
    }
  }

  /** The link is back: what happened in the shells meanwhile, then the answers kept, go up. */
  deliverKeptAnswers(): void {
    // Those sent on the last link and never acknowledged are older than those kept since.
    this.keptStories = [...this.unackedStories, ...this.keptStories];
    this.unackedStories = [];
    // Counted, then cut once: a shift per story would move the rest each time (20,000 at most).
    let sent = 0;
    while (
      sent < this.keptStories.length &&
      this.sendStory(this.keptStories[sent] as LinkShellStory)
    )
      sent++;
    this.keptStories.splice(0, sent);
    if (this.keptStories.length > 0) return;
    for (const [id, call] of this.calls) {
      if (call.answer !== undefined) this.sendAnswer(id, call.answer);
    }
  }

  /** Shells the control plane gave up on end here too. */
  endShells(ids: readonly string[]): void {
    for (const id of ids) {
      const shell = this.tools.registry.find(id);
      if (shell?.alive) void shell.reset();
    }
  }

  /** The grace period passed without a link: every shell ends (its agent's calls were lost). */
  endAll(): void {
    for (const shell of this.tools.registry.shells()) if (shell.alive) void shell.reset();
  }

  dispose(): void {
    this.disposables.dispose();
    this.files.dispose();
    for (const store of this.watched.values()) store.dispose();
    for (const timer of this.infoTimers.values()) clearTimeout(timer);
  }

  private startCall(callId: string, agent: string, dialect: 'bash' | 'pwsh', command: string) {
    if (this.calls.has(callId)) return; // sent again after a reconnect: it runs once
    const call: RunningCall = { controller: new AbortController() };
    this.calls.set(callId, call);
    this.tools.call(agent, dialect, command, call.controller.signal).then(
      (output) => this.answer(callId, call, { type: 'call_result', callId, output }),
      (error: unknown) => {
        const coded =
          error instanceof JumpseatError
            ? error
            : new JumpseatError(JUMPSEAT_ERR_INTERNAL, 'the host failed to run the call');
        this.answer(callId, call, {
          type: 'call_error',
          callId,
          code: coded.code,
          status: coded.status,
          message: coded.message,
        });
      },
    );
  }

  private answer(callId: string, call: RunningCall, message: HostMessage): void {
    // The shells' changes waiting for their timer go first: whoever reads the shell's state
    // on the control plane once the agent has its answer sees it idle, not still running.
    for (const id of [...this.infoTimers.keys()]) {
      const shell = this.tools.registry.find(id);
      if (shell !== undefined) this.flushInfo(shell);
    }
    call.answer = message;
    this.sendAnswer(callId, message);
  }

  /**
   * Sends an answer kept in `calls`. Taken by the link, it goes at once where no acknowledgement
   * comes, else it waits for one.
   */
  private sendAnswer(callId: string, answer: HostMessage): void {
    if (!this.link.send(answer)) return;
    if (!this.link.acknowledgesAnswers) {
      this.letGo(callId);
      return;
    }
    this.unacknowledged.add(callId);
    if (this.unacknowledged.size > MAX_UNACKNOWLEDGED_ANSWERS) {
      const oldest = this.unacknowledged.values().next().value;
      if (oldest !== undefined) this.letGo(oldest);
    }
  }

  /**
   * Sends a story, numbered where the control plane acknowledges stories, and then kept until
   * it does (within the stories' bound); false when the link is down.
   */
  private sendStory(message: LinkShellStory, later = false): boolean {
    const acknowledged = this.link.acknowledgesAnswers;
    if (acknowledged && message.seq === undefined) message.seq = ++this.storySeq;
    if (!(later ? this.link.sendLater(message) : this.link.send(message))) return false;
    if (acknowledged) {
      this.unackedStories.push(message);
      if (this.unackedStories.length > MAX_KEPT_STORIES) this.unackedStories.shift();
    }
    return true;
  }

  /** The call is over here: its answer reached the control plane (or is given up). */
  private letGo(callId: string): void {
    this.calls.delete(callId);
    this.unacknowledged.delete(callId);
  }

  private watch(shell: Shell): void {
    if (this.watched.has(shell.id)) return;
    const store = new DisposableStore();
    this.watched.set(shell.id, store);
    this.outbox.add(shell.id, shell.displayOffset);
    store.add(
      shell.onDisplay.on((chunk) => {
        this.outbox.push(shell.id, chunk.offset, chunk.data);
        this.link.pumpOutput();
      }),
    );
    store.add(shell.onChange.on(() => this.infoSoon(shell)));
    const tell = (story: LinkShellStory['story'], later = false): void => {
      // Its info first: the control plane records a call with the shell's state at its end.
      this.flushInfo(shell, later);
      const message: LinkShellStory = { type: 'shell_story', shellId: shell.id, story };
      if (this.keptStories.length === 0 && this.sendStory(message, later)) return;
      // The link is down: the story waits for it (its newest part, within a bound).
      this.keptStories.push(message);
      if (this.keptStories.length > MAX_KEPT_STORIES) this.keptStories.shift();
    };
    const { human } = shell;
    // Nobody waits for the news that a call started: a short call's start, output and answer
    // then reach the control plane in one write.
    store.add(
      shell.onCallStarted.on(({ command }) => tell({ kind: 'call_started', command }, true)),
    );
    store.add(shell.onCallFinished.on((call) => tell({ kind: 'call_finished', call })));
    store.add(human.onControl.on((viewer) => tell({ kind: 'control', viewer })));
    store.add(human.onInterrupt.on((viewer) => tell({ kind: 'interrupt', viewer })));
    store.add(
      human.onInput.on(({ keys, hidden }) => {
        if (!hidden) tell({ kind: 'input', keys });
      }),
    );
    store.add(human.secrets.onAnswer.on(({ by, answer }) => tell({ kind: 'secret', by, answer })));
    this.link.send({
      type: 'shell_opened',
      shell: { info: shell.info(), offset: shell.displayOffset },
    });
  }

  /** A change waiting for its timer goes up now. */
  private flushInfo(shell: Shell, later = false): void {
    const timer = this.infoTimers.get(shell.id);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.infoTimers.delete(shell.id);
    this.sendInfo(shell, later);
  }

  private infoSoon(shell: Shell): void {
    if (this.infoTimers.has(shell.id)) return;
    const last = this.infoSent.get(shell.id) ?? Number.NEGATIVE_INFINITY;
    this.infoTimers.set(
      shell.id,
      setTimeout(
        () => {
          this.infoTimers.delete(shell.id);
          this.sendInfo(shell);
        },
        Math.max(0, last + INFO_UPDATE_MS - performance.now()),
      ),
    );
  }

  private sendInfo(shell: Shell, later = false): void {
    this.infoSent.set(shell.id, performance.now());
    const message: HostMessage = { type: 'shell_info', info: shell.info() };
    if (later) this.link.sendLater(message);
    else this.link.send(message);
  }

  private unwatch(shell: Shell): void {
    this.watched.get(shell.id)?.dispose();
    this.watched.delete(shell.id);
    clearTimeout(this.infoTimers.get(shell.id));
    this.infoTimers.delete(shell.id);
    this.infoSent.delete(shell.id);
    this.outbox.remove(shell.id);
    const info: SessionInfo = shell.info();
    this.link.send({ type: 'shell_closed', info });
  }
}
