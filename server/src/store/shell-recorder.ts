/**
 * Follows one shell for history: its display bytes, resizes and call markers go to its
 * asciicast; its calls (with who held the controls), control events and description go to the
 * database. Listeners only append to memory — the PTY path never waits for a disk — and
 * `drain` hands what gathered to the history's periodic flush.
 */
import { StringDecoder } from 'node:string_decoder';
import type { CallInfo, ControlEvent } from '../../../shared/src/api.ts';
import type { Viewer } from '../../../shared/src/live.ts';
import { DisposableStore } from '../pty/disposable.ts';
import type { Shell } from '../session/shell.ts';
import { type EventCode, eventLine } from './asciicast.ts';
import type { RecordingFiles, RecordingWriter } from './recording-files.ts';

/** Output chunks closer together than this become one event: fewer, larger lines. */
const OUTPUT_COALESCE_MS = 5;
/** The terminal the recording says it was made on (what the shells run with). */
const RECORDING_TERM = 'xterm-256color';
const MS_PER_SECOND = 1000;

interface PendingEvent {
  readonly at: number;
  readonly code: EventCode;
  /** Output stays bytes until the flush decodes it (UTF-8 may be split across chunks). */
  readonly data: Buffer | string;
}

/** What one shell gathered since the last drain. */
export interface RecorderDrain {
  readonly calls: CallInfo[];
  readonly controls: ControlEvent[];
  /** The shell's description changed, or it did anything: its row is written again. */
  readonly touched: boolean;
  /** Lines for its recording, already appended to its writer's queue. */
  readonly written: Promise<void>;
}

export class ShellRecorder {
  private readonly subscriptions = new DisposableStore();
  private readonly decoder = new StringDecoder('utf8');
  private readonly writer: RecordingWriter;
  /** Event times count from the header's whole-second timestamp. */
  private readonly epochMs: number;
  private events: PendingEvent[] = [];
  private calls: CallInfo[] = [];
  private controls: ControlEvent[] = [];
  private touched = true;
  /** The person at the controls while the current call ran (the last one who took them). */
  private callController: string | null = null;
  private callRunning = false;
  private controller: Viewer | null = null;

  constructor(
    readonly shell: Shell,
    files: RecordingFiles,
    private readonly recordKeystrokes: boolean,
  ) {
    const info = shell.info();
    this.epochMs = Math.floor(shell.startedAt.getTime() / MS_PER_SECOND) * MS_PER_SECOND;
    this.writer = files.writer(shell.id, {
      version: 2,
      width: info.cols,
      height: info.rows,
      timestamp: this.epochMs / MS_PER_SECOND,
      title: `${info.agent ?? info.owner ?? 'shell'} · ${info.dialect}`,
      env: { TERM: RECORDING_TERM, SHELL: info.dialect },
    });
    const { human } = shell;
    this.subscriptions.add(
      shell.onDisplay.on(({ data }) => this.events.push({ at: Date.now(), code: 'o', data })),
    );
    this.subscriptions.add(
      shell.onResize.on(({ cols, rows }) => this.event('r', `${cols}x${rows}`)),
    );
    this.subscriptions.add(
      shell.onCallStarted.on(({ command }) => {
        this.callRunning = true;
        this.callController = this.controller?.name ?? null;
        this.event('m', command);
      }),
    );
    this.subscriptions.add(
      shell.onCallFinished.on((call) => {
        this.callRunning = false;
        this.calls.push({
          ...call,
          controller: this.callController ?? this.controller?.name ?? null,
        });
        this.event('m', `end: ${call.command}`);
      }),
    );
    this.subscriptions.add(
      human.onControl.on((viewer) => {
        if (viewer?.id === this.controller?.id) return;
        // Handed straight to another person (a granted request): one lets go, the other takes.
        if (this.controller !== null) this.control('release', this.controller.name);
        this.controller = viewer;
        if (viewer === null) return;
        if (this.callRunning) this.callController = viewer.name;
        this.control('take', viewer.name);
      }),
    );
    this.subscriptions.add(
      human.onInterrupt.on((viewer) => this.control('interrupt', viewer.name)),
    );
    if (recordKeystrokes) {
      this.subscriptions.add(human.onInput.on(({ keys }) => this.event('i', keys)));
    }
    this.subscriptions.add(
      shell.onChange.on(() => {
        this.touched = true;
      }),
    );
  }

  /** The recording part being written (retention keeps it). */
  get activePath(): string | null {
    return this.writer.activePath;
  }

  get ended(): boolean {
    return !this.shell.alive;
  }

  /** Calls gathered and not yet drained (the API serves them before they reach the disk). */
  get pendingCalls(): readonly CallInfo[] {
    return this.calls;
  }

  get pendingControls(): readonly ControlEvent[] {
    return this.controls;
  }

  /** Takes what gathered: its recording lines go to the writer now, the rows to the caller. */
  drain(): RecorderDrain {
    const drained: RecorderDrain = {
      calls: this.calls,
      controls: this.controls,
      touched: this.touched || this.events.length > 0,
      written: this.writer.append(this.recordingLines()),
    };
    this.calls = [];
    this.controls = [];
    this.touched = false;
    return drained;
  }

  /** Resolves once every drained line is on disk. */
  settled(): Promise<void> {
    return this.writer.settled();
  }

  dispose(): void {
    this.subscriptions.dispose();
  }

  private event(code: EventCode, data: string): void {
    this.events.push({ at: Date.now(), code, data });
  }

  private control(kind: ControlEvent['kind'], name: string): void {
    this.controls.push({
      at: new Date().toISOString(),
      kind,
      name,
      keysRecorded: this.recordKeystrokes,
    });
    this.touched = true;
  }

  /** The pending events as lines, consecutive output within OUTPUT_COALESCE_MS joined. */
  private recordingLines(): string[] {
    const lines: string[] = [];
    let outputAt = 0;
    let output = '';
    const endOutput = (): void => {
      if (output !== '') lines.push(eventLine(outputAt - this.epochMs, 'o', output));
      output = '';
    };
    for (const event of this.events) {
      if (event.code !== 'o') {
        endOutput();
        lines.push(eventLine(event.at - this.epochMs, event.code, String(event.data)));
        continue;
      }
      const text = typeof event.data === 'string' ? event.data : this.decoder.write(event.data);
      if (output !== '' && event.at - outputAt > OUTPUT_COALESCE_MS) endOutput();
      if (output === '') outputAt = event.at;
      output += text;
    }
    // The shell is gone: bytes the decoder still holds (a cut-off character) end the output.
    if (this.ended) {
      const rest = this.decoder.end();
      if (rest !== '') output += rest;
      if (output !== '' && outputAt === 0) outputAt = Date.now();
    }
    endOutput();
    this.events = [];
    return lines;
  }
}
