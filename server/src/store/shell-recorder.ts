/**
 * Follows one shell for history: its display bytes, resizes and call markers for its asciicast;
 * its calls (with who held the controls), control events and description for the database.
 * Listeners only append to memory — the PTY path never waits for a disk — and `drain` hands
 * what gathered to the history's periodic flush.
 */
import type { CallInfo, ControlEvent, SessionInfo } from '../../../shared/src/api.ts';
import type { AsciicastHeader, EventCode } from '../../../shared/src/asciicast.ts';
import type { Viewer } from '../../../shared/src/live.ts';
import { type Disposable, DisposableStore } from '../pty/disposable.ts';
import type { RecordingEventData } from './recording-messages.ts';

/**
 * What history follows of a shell: a shell of this server's own, or one of a joined host
 * as its link tells it (control/remote-story.ts), so a host's shells are recorded here.
 */
/** Events history listens to (an Emitter, seen from outside). */
interface Heard<T> {
  on(listener: (value: T) => void): Disposable;
}

export interface RecordedShell {
  readonly id: string;
  readonly startedAt: Date;
  readonly alive: boolean;
  readonly agent: string | null;
  info(): SessionInfo;
  readonly onDisplay: Heard<{ readonly data: Buffer }>;
  readonly onResize: Heard<{ cols: number; rows: number }>;
  readonly onCallStarted: Heard<{ readonly command: string }>;
  readonly onCallFinished: Heard<CallInfo>;
  readonly onChange: Heard<void>;
  readonly human: {
    readonly onControl: Heard<Viewer | null>;
    readonly onInterrupt: Heard<Viewer>;
    readonly onInput: Heard<{ readonly keys: string; readonly hidden: boolean }>;
    readonly secrets: {
      readonly onAnswer: Heard<{ readonly by: Viewer; readonly answer: 'sent' | 'withheld' }>;
    };
  };
}

/**
 * A shell's output gathered past this size asks for a flush before the timer's: a flood is
 * written in pieces of about this size, so the memory it holds stays bounded.
 */
const RECORDER_BACKLOG_BYTES = 1024 * 1024;
/** Output chunks closer together than this become one event: fewer, larger lines. */
const OUTPUT_COALESCE_MS = 5;
/**
 * Drains a recorder waits, once its shell ended, for the result of a call that was running
 * (the shell ends before the call's record is made: `exit` in a command): 20 flushes, 10 s.
 */
const DRAINS_AWAITING_LAST_CALL = 20;
/** The terminal the recording says it was made on (what the shells run with). */
const RECORDING_TERM = 'xterm-256color';
const MS_PER_SECOND = 1000;

interface PendingEvent {
  readonly at: number;
  readonly code: EventCode;
  /** Output stays bytes: the recording thread decodes it (UTF-8 may be split across chunks). */
  readonly data: Buffer | string;
}

/** What one shell gathered since the last drain. */
export interface RecorderDrain {
  readonly calls: CallInfo[];
  readonly controls: ControlEvent[];
  /** The shell's description changed, or it did anything: its row is written again. */
  readonly touched: boolean;
  /** For its recording; output joined per group into buffers of their own (in `transfer`). */
  readonly events: RecordingEventData[];
  readonly transfer: ArrayBuffer[];
}

export class ShellRecorder {
  readonly header: AsciicastHeader;
  private readonly subscriptions = new DisposableStore();
  private events: PendingEvent[] = [];
  private calls: CallInfo[] = [];
  private controls: ControlEvent[] = [];
  private touched = true;
  /** The person at the controls while the current call ran (the last one who took them). */
  private callController: Viewer | null = null;
  private callRunning = false;
  private controller: Viewer | null = null;
  /** Output bytes gathered since the last drain, and whether a flush was asked for. */
  private backlogBytes = 0;
  private backlogSignalled = false;
  /** Drains since the shell ended (see DRAINS_AWAITING_LAST_CALL). */
  private drainsSinceEnd = 0;
  /** When the server's stop began, for a shell of its own that the stop ends (closedByStop). */
  private stoppedAt: string | null = null;

  constructor(
    readonly shell: RecordedShell,
    private readonly recordKeystrokes: boolean,
    /** Called (once per drain) when gathered output passes RECORDER_BACKLOG_BYTES. */
    private readonly onBacklog: () => void,
  ) {
    const info = shell.info();
    this.header = {
      version: 2,
      width: info.cols,
      height: info.rows,
      // Whole seconds, as asciicast v2 has it: event times count from this.
      timestamp: Math.floor(shell.startedAt.getTime() / MS_PER_SECOND),
      title: `${info.agent ?? info.owner ?? 'shell'} · ${info.dialect}`,
      env: { TERM: RECORDING_TERM, SHELL: info.dialect },
    };
    const { human } = shell;
    this.subscriptions.add(
      shell.onDisplay.on(({ data }) => {
        this.events.push({ at: Date.now(), code: 'o', data });
        this.backlogBytes += data.length;
        if (this.backlogBytes >= RECORDER_BACKLOG_BYTES && !this.backlogSignalled) {
          this.backlogSignalled = true;
          this.onBacklog();
        }
      }),
    );
    this.subscriptions.add(
      shell.onResize.on(({ cols, rows }) => this.event('r', `${cols}x${rows}`)),
    );
    this.subscriptions.add(
      shell.onCallStarted.on(({ command }) => {
        this.callRunning = true;
        this.callController = this.controller;
        this.event('m', command);
      }),
    );
    this.subscriptions.add(
      shell.onCallFinished.on((call) => {
        this.callRunning = false;
        const controller = this.callController ?? this.controller;
        this.calls.push({
          ...call,
          controller: controller?.name ?? null,
          controllerTokenId: controller?.tokenId ?? null,
        });
        this.event('m', `end: ${call.command}`);
      }),
    );
    this.subscriptions.add(
      human.onControl.on((viewer) => {
        if (viewer?.id === this.controller?.id) return;
        // Handed straight to another person (a granted request): one lets go, the other takes.
        if (this.controller !== null) this.control('release', this.controller);
        this.controller = viewer;
        if (viewer === null) return;
        if (this.callRunning) this.callController = viewer;
        this.control('take', viewer);
      }),
    );
    this.subscriptions.add(human.onInterrupt.on((viewer) => this.control('interrupt', viewer)));
    this.subscriptions.add(
      human.secrets.onAnswer.on(({ by, answer }) =>
        this.control(answer === 'sent' ? 'secret_sent' : 'secret_withheld', by),
      ),
    );
    if (recordKeystrokes) {
      // A hidden answer (a password read with the echo off) never goes into the recording.
      this.subscriptions.add(
        human.onInput.on(({ keys, hidden }) => {
          if (!hidden) this.event('i', keys);
        }),
      );
    }
    let agent = info.agent;
    this.subscriptions.add(
      shell.onChange.on(() => {
        this.touched = true;
        // A person's shell handed to an agent: part of the story its timeline tells.
        if (agent === null && shell.agent !== null)
          this.control('hand_off', { id: '', name: shell.agent, role: 'agent' });
        agent = shell.agent;
      }),
    );
  }

  /**
   * The server is stopping and will end this shell: from now on its row says `closed` at
   * `at`, whatever the ending takes (a stop of 1,000 shells takes seconds, and one that gives
   * up must not leave them to be found unfinished). An ending of its own before it stays.
   */
  closedByStop(at: Date): void {
    if (!this.shell.alive || this.stoppedAt !== null) return;
    this.stoppedAt = at.toISOString();
    this.touched = true;
  }

  /** The shell's description as its row says it (closedByStop's ending once the stop began). */
  description(): SessionInfo {
    const info = this.shell.info();
    if (this.stoppedAt === null || (info.ending !== null && info.ending.kind !== 'closed'))
      return info;
    return {
      ...info,
      state: 'exited',
      endedAt: this.stoppedAt,
      ending: { kind: 'closed', exitCode: null, signal: null },
    };
  }

  /** The shell ended and its last call (if one ran) was recorded: it may be let go. */
  get ended(): boolean {
    if (this.shell.alive) return false;
    return !this.callRunning || this.drainsSinceEnd > DRAINS_AWAITING_LAST_CALL;
  }

  /** Calls gathered and not yet drained (the API serves them before they reach the disk). */
  get pendingCalls(): readonly CallInfo[] {
    return this.calls;
  }

  get pendingControls(): readonly ControlEvent[] {
    return this.controls;
  }

  /** Takes what gathered. */
  drain(): RecorderDrain {
    if (!this.shell.alive) this.drainsSinceEnd += 1;
    const { events, transfer } = this.recordingEvents();
    const drained: RecorderDrain = {
      calls: this.calls,
      controls: this.controls,
      touched: this.touched || events.length > 0,
      events,
      transfer,
    };
    this.calls = [];
    this.controls = [];
    this.touched = false;
    this.backlogBytes = 0;
    this.backlogSignalled = false;
    return drained;
  }

  dispose(): void {
    this.subscriptions.dispose();
  }

  private event(code: EventCode, data: string): void {
    this.events.push({ at: Date.now(), code, data });
  }

  private control(kind: ControlEvent['kind'], who: Viewer): void {
    this.controls.push({
      at: new Date().toISOString(),
      kind,
      name: who.name,
      tokenId: who.tokenId ?? null,
      keysRecorded: this.recordKeystrokes,
    });
    this.touched = true;
  }

  /**
   * The pending events, consecutive output within OUTPUT_COALESCE_MS joined into one buffer
   * of its own (not a slice of a shared pool, so it can be moved to the recording thread).
   */
  private recordingEvents(): { events: RecordingEventData[]; transfer: ArrayBuffer[] } {
    const events: RecordingEventData[] = [];
    const transfer: ArrayBuffer[] = [];
    let group: Buffer[] = [];
    let groupAt = 0;
    let groupBytes = 0;
    let lastAt = 0;
    const endGroup = (): void => {
      if (group.length === 0) return;
      const joined = new Uint8Array(groupBytes);
      let offset = 0;
      for (const chunk of group) {
        joined.set(chunk, offset);
        offset += chunk.length;
      }
      events.push({ at: groupAt, code: 'o', data: joined });
      transfer.push(joined.buffer);
      group = [];
      groupBytes = 0;
    };
    for (const event of this.events) {
      if (typeof event.data === 'string') {
        endGroup();
        events.push({ at: event.at, code: event.code, data: event.data });
        continue;
      }
      if (group.length > 0 && event.at - lastAt > OUTPUT_COALESCE_MS) endGroup();
      if (group.length === 0) groupAt = event.at;
      lastAt = event.at;
      group.push(event.data);
      groupBytes += event.data.length;
    }
    endGroup();
    this.events = [];
    return { events, transfer };
  }
}
