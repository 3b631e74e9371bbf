/**
 * The session page's status line: information ("Bob has the controls now."), warnings (a
 * request declined, the connection lost) and errors (a refusal from the server) each look
 * like what they are. Notices fade; a lost shell stays said.
 */
import { h } from './dom.ts';

export type NoticeTone = 'info' | 'warning' | 'error';

/** How long a notice stays in the status line. */
const NOTICE_MS = 6000;

export class NoticeLine {
  readonly element = h('p', { class: 'notice-line', 'data-testid': 'notice-line', role: 'status' });
  private timer: ReturnType<typeof setTimeout> | undefined;

  show(text: string, tone: NoticeTone, sticky = false): void {
    clearTimeout(this.timer);
    this.element.dataset.tone = tone;
    // Warnings and errors interrupt a screen reader; information waits its turn. The
    // tone's icon is the stylesheet's, so the text is exactly the message.
    this.element.setAttribute('role', tone === 'info' ? 'status' : 'alert');
    this.element.textContent = text;
    if (sticky) return;
    this.timer = setTimeout(() => this.clear(), NOTICE_MS);
  }

  clear(): void {
    clearTimeout(this.timer);
    this.element.replaceChildren();
    delete this.element.dataset.tone;
  }
}
