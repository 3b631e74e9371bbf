/**
 * The session page's status line: information ("Bob has the controls now."), warnings (a
 * request declined, the connection lost) and errors (a refusal from the server) each look
 * like what they are. Notices fade; a lost shell stays said.
 */
import { h } from './dom.ts';

export type NoticeTone = 'info' | 'warning' | 'error';

/** How long a notice stays in the status line. */
const NOTICE_MS = 6000;

const ICONS: Record<NoticeTone, string> = { info: 'ℹ', warning: '⚠', error: '✕' };

export class NoticeLine {
  readonly element = h('p', { class: 'notice-line', 'data-testid': 'notice-line', role: 'status' });
  private timer: ReturnType<typeof setTimeout> | undefined;

  show(text: string, tone: NoticeTone, sticky = false): void {
    clearTimeout(this.timer);
    this.element.dataset.tone = tone;
    // Errors interrupt a screen reader; the rest wait their turn.
    this.element.setAttribute('role', tone === 'error' ? 'alert' : 'status');
    this.element.replaceChildren(
      h('span', { class: 'notice-icon', 'aria-hidden': 'true' }, ICONS[tone]),
      h('span', {}, text),
    );
    if (sticky) return;
    this.timer = setTimeout(() => this.clear(), NOTICE_MS);
  }

  clear(): void {
    clearTimeout(this.timer);
    this.element.replaceChildren();
    delete this.element.dataset.tone;
  }
}
