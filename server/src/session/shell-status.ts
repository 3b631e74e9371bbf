/**
 * What one shell is doing, as `info()` reports it: its state and since when, its last exit
 * code, when it ended, and its terminal's path once known. Every part of the shell reads it;
 * each change of state is announced.
 */
import type { SessionState } from '../../../shared/src/api.ts';

export class ShellStatus {
  private value: SessionState = 'starting';
  /** When the state last changed: the web app times a wait for input from it. */
  private sinceValue = new Date();
  private endedAtValue: Date | null = null;
  lastExitCode: number | null = null;
  /** The terminal's device path, once the shell is located ('' before). */
  ttyPath = '';

  constructor(
    /** The shell just became `exited`, before the change is announced. */
    private readonly ended: () => void,
    private readonly changed: () => void,
  ) {}

  get state(): SessionState {
    return this.value;
  }

  get since(): Date {
    return this.sinceValue;
  }

  get endedAt(): Date | null {
    return this.endedAtValue;
  }

  get alive(): boolean {
    return this.value !== 'exited';
  }

  /** A new state; none follows `exited`. */
  set(state: SessionState): void {
    if (this.value === state || this.value === 'exited') return;
    this.value = state;
    this.sinceValue = new Date();
    if (state === 'exited') {
      this.endedAtValue = new Date();
      this.ended();
    }
    this.changed();
  }
}
