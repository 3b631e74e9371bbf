/**
 * The idle hand-back (issue 13): a controller who types nothing for the idle limit gives an
 * agent's shell back to its agent, with a warning shortly before, so an agent is never held
 * up for good by someone who walked away. A person's own shell has no agent to go back to.
 */
import type { Viewer } from '../../../shared/src/live.ts';

/** The warning comes this long before the hand-back (or at half the limit, when shorter). */
export const IDLE_WARNING_LEAD_MS = 60_000;

export interface IdleActions {
  /** The controller has `inMs` left to type before the hand-back. */
  warn(controller: Viewer, inMs: number): void;
  /** The limit passed with no keystroke: hand the shell back. */
  expire(controller: Viewer): void;
}

export class ControlIdleWatch {
  private controller: Viewer | null = null;
  private warnTimer: NodeJS.Timeout | undefined;
  private expireTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly actions: IdleActions,
  ) {}

  /** Who holds the controls now (null: nobody); `watched` false for a person's own shell. */
  held(controller: Viewer | null, watched: boolean): void {
    this.controller = watched ? controller : null;
    this.restart();
  }

  /** The controller typed: the limit counts from now. */
  typed(): void {
    if (this.controller !== null) this.restart();
  }

  dispose(): void {
    this.controller = null;
    this.restart();
  }

  private restart(): void {
    clearTimeout(this.warnTimer);
    clearTimeout(this.expireTimer);
    const controller = this.controller;
    if (controller === null) return;
    const lead = Math.min(IDLE_WARNING_LEAD_MS, Math.floor(this.idleMs / 2));
    this.warnTimer = setTimeout(() => this.actions.warn(controller, lead), this.idleMs - lead);
    this.expireTimer = setTimeout(() => {
      if (this.controller === controller) this.actions.expire(controller);
    }, this.idleMs);
    this.warnTimer.unref();
    this.expireTimer.unref();
  }
}
