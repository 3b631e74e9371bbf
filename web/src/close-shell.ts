/**
 * Closing a person's shell (its owner or an admin): ends its whole process tree. Asked
 * twice, in the page rather than in a browser dialog, because it cannot be undone.
 */
import { closeShell, problemText } from './api-client.ts';
import { h } from './dom.ts';

export class CloseShellButton {
  readonly element: HTMLElement;
  private readonly ask = h('button', { type: 'button', class: 'danger-outline' }, 'Close shell');
  private readonly confirm: HTMLElement;
  private readonly error = h('span', { class: 'form-error', role: 'alert' });

  constructor(sessionId: string) {
    const yes = h('button', { type: 'button', class: 'danger' }, 'Close it');
    const no = h('button', { type: 'button', class: 'quiet' }, 'Keep it');
    this.confirm = h(
      'span',
      { class: 'confirm', role: 'group', 'aria-label': 'Confirm closing the shell', hidden: true },
      'End this shell and everything running in it?',
      yes,
      no,
    );
    this.ask.addEventListener('click', () => this.asking(true));
    no.addEventListener('click', () => this.asking(false));
    yes.addEventListener('click', () => {
      yes.disabled = true;
      void closeShell(sessionId).then((reply) => {
        yes.disabled = false;
        this.asking(false);
        if (!reply.ok) this.error.textContent = `Not closed: ${problemText(reply.problem)}`;
      });
    });
    this.element = h(
      'span',
      { class: 'close-shell', 'data-testid': 'close-shell' },
      this.ask,
      this.confirm,
      this.error,
    );
  }

  private asking(on: boolean): void {
    this.ask.hidden = on;
    this.confirm.hidden = !on;
    this.error.textContent = '';
  }
}
