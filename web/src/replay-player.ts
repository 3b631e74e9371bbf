/**
 * Plays a recording into our own xterm.js view (the live view's renderer, theme and fonts):
 * a playback clock with play, pause, seek and speed. Seeking back rebuilds the screen from the
 * start — xterm parses megabytes in moments — and markers are never written to the terminal.
 */
import type { ReplayCast, ReplayFrame } from './replay-cast.ts';
import type { TerminalView } from './terminal-view.ts';

export type PlayerState = 'paused' | 'playing' | 'ended';

export const SPEEDS = [0.5, 1, 2, 4, 8, 16] as const;

export class ReplayPlayer {
  private positionMs = 0;
  /** Index of the first frame not yet written to the view. */
  private next = 0;
  private stateValue: PlayerState = 'paused';
  private speedValue = 1;
  /** While playing: the clock's position and the page's time when it last (re)started. */
  private anchor = { position: 0, wall: 0 };
  private frame = 0;
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly view: TerminalView,
    private readonly cast: ReplayCast,
    private readonly onUpdate: (player: ReplayPlayer) => void,
  ) {
    this.view.replace(cast.cols, cast.rows, '');
  }

  get position(): number {
    return this.positionMs;
  }

  get duration(): number {
    return this.cast.durationMs;
  }

  get state(): PlayerState {
    return this.stateValue;
  }

  get speed(): number {
    return this.speedValue;
  }

  play(): void {
    if (this.stateValue === 'playing') return;
    if (this.positionMs >= this.cast.durationMs) this.seek(0);
    this.stateValue = 'playing';
    this.anchor = { position: this.positionMs, wall: performance.now() };
    this.tick();
  }

  pause(): void {
    if (this.stateValue !== 'playing') return;
    cancelAnimationFrame(this.frame);
    this.stateValue = 'paused';
    this.onUpdate(this);
  }

  setSpeed(speed: number): void {
    this.anchor = { position: this.positionMs, wall: performance.now() };
    this.speedValue = speed;
    this.onUpdate(this);
  }

  /** Shows the screen as it was at `ms` on the playback clock; playing goes on from there. */
  seek(ms: number): void {
    const target = Math.max(0, Math.min(ms, this.cast.durationMs));
    if (target < this.positionMs) {
      this.view.replace(this.cast.cols, this.cast.rows, '');
      this.next = 0;
    }
    this.positionMs = target;
    this.anchor = { position: target, wall: performance.now() };
    if (this.stateValue === 'ended') this.stateValue = 'paused';
    this.writeUpTo(target);
    this.onUpdate(this);
  }

  /** Shows the next (`1`) or previous (`-1`) frame that changes the screen; pauses. */
  stepFrame(direction: 1 | -1): void {
    this.pause();
    const frames = this.cast.frames;
    if (direction === 1) {
      const next = frames.find((frame) => frame.at > this.positionMs);
      this.seek(next?.at ?? this.cast.durationMs);
      return;
    }
    // The frame before the one the screen shows now: everything up to it, nothing after.
    let shownUpTo = -1;
    while ((frames[shownUpTo + 1]?.at ?? Number.POSITIVE_INFINITY) <= this.positionMs)
      shownUpTo += 1;
    const previous = shownUpTo > 0 ? frames[shownUpTo - 1] : undefined;
    this.seek(previous?.at ?? 0);
  }

  /** When the first frame is drawn: the screen to show before anyone presses Play. */
  get firstFrameAt(): number {
    return this.cast.frames[0]?.at ?? 0;
  }

  dispose(): void {
    cancelAnimationFrame(this.frame);
  }

  private tick(): void {
    const elapsed = (performance.now() - this.anchor.wall) * this.speedValue;
    this.positionMs = Math.min(this.anchor.position + elapsed, this.cast.durationMs);
    this.writeUpTo(this.positionMs);
    if (this.positionMs >= this.cast.durationMs) this.stateValue = 'ended';
    this.onUpdate(this);
    if (this.stateValue === 'playing') this.frame = requestAnimationFrame(() => this.tick());
  }

  /** Writes every frame up to `ms`, consecutive output joined into one write. */
  private writeUpTo(ms: number): void {
    let output = '';
    const frames = this.cast.frames;
    while (this.next < frames.length && (frames[this.next] as ReplayFrame).at <= ms) {
      const frame = frames[this.next] as ReplayFrame;
      this.next += 1;
      if (frame.kind === 'output') {
        output += frame.data;
        continue;
      }
      if (output !== '') this.view.write(this.encoder.encode(output));
      output = '';
      this.view.resize(frame.cols, frame.rows);
    }
    if (output !== '') this.view.write(this.encoder.encode(output));
  }
}
