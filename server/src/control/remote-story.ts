/**
 * A joined host's shell as the control plane's history follows it: its output from the link's
 * stream, its info from the host's reports, and its calls, control changes and interrupts
 * from the host's `shell_story` messages. The control plane records it like a shell of its
 * own, so its calls, timeline and replay stay whole even once the host is gone.
 */
import type { CallInfo, SessionInfo } from '../../../shared/src/api.ts';
import type { LinkShellStory } from '../../../shared/src/link.ts';
import type { Viewer } from '../../../shared/src/live.ts';
import { Emitter } from '../pty/disposable.ts';
import type { RecordedShell } from '../store/shell-recorder.ts';

export class RemoteStory implements RecordedShell {
  readonly startedAt: Date;
  readonly onDisplay = new Emitter<{ readonly data: Buffer }>();
  readonly onResize = new Emitter<{ cols: number; rows: number }>();
  readonly onCallStarted = new Emitter<{ readonly command: string }>();
  readonly onCallFinished = new Emitter<CallInfo>();
  readonly onChange = new Emitter<void>();
  readonly human = {
    onControl: new Emitter<Viewer | null>(),
    onInterrupt: new Emitter<Viewer>(),
    onInput: new Emitter<{ readonly keys: string; readonly hidden: boolean }>(),
    secrets: {
      onAnswer: new Emitter<{ readonly by: Viewer; readonly answer: 'sent' | 'withheld' }>(),
    },
  };

  constructor(private readonly current: () => SessionInfo) {
    const started = Date.parse(current().startedAt);
    this.startedAt = new Date(Number.isNaN(started) ? Date.now() : started);
  }

  get id(): string {
    return this.current().id;
  }

  get alive(): boolean {
    const info = this.current();
    return info.endedAt === null && info.state !== 'exited';
  }

  get agent(): string | null {
    return this.current().agent;
  }

  info(): SessionInfo {
    return this.current();
  }

  /** The shell's info changed from `before`. */
  changed(before: SessionInfo): void {
    const after = this.current();
    if (after.cols !== before.cols || after.rows !== before.rows) {
      this.onResize.fire({ cols: after.cols, rows: after.rows });
    }
    this.onChange.fire();
  }

  output(data: Uint8Array): void {
    this.onDisplay.fire({ data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) });
  }

  tell(story: LinkShellStory['story']): void {
    switch (story.kind) {
      case 'call_started':
        this.onCallStarted.fire({ command: story.command });
        break;
      case 'call_finished':
        this.onCallFinished.fire(story.call);
        break;
      case 'control':
        this.human.onControl.fire(story.viewer);
        break;
      case 'interrupt':
        this.human.onInterrupt.fire(story.viewer);
        break;
      case 'input':
        this.human.onInput.fire({ keys: story.keys, hidden: false });
        break;
      case 'secret':
        this.human.secrets.onAnswer.fire({ by: story.by, answer: story.answer });
        break;
    }
  }
}
