/**
 * The question before a hidden answer (a password) the person typed goes into an agent's
 * shell (issue 21): the server holds the keys and asks; this shows its words and the two
 * answers. The focus stays in the terminal: what is typed on (the rest of the password, its
 * Enter) waits with the first key at the server and goes, or is dropped, with it.
 */
import { type ClientMessage, SECRET_WARNING_TEXT } from '../../shared/src/live.ts';
import { h } from './dom.ts';

export class SecretQuestion {
  private readonly send = h('button', { type: 'button' }, 'Send anyway');
  private readonly keep = h('button', { type: 'button', class: 'primary' }, "Don't send");
  readonly element = h(
    'div',
    {
      class: 'secret-question',
      'data-testid': 'secret-question',
      role: 'alertdialog',
      'aria-labelledby': 'secret-question-text',
      hidden: true,
    },
    h('p', { id: 'secret-question-text' }, SECRET_WARNING_TEXT),
    h('div', { class: 'secret-answers' }, this.send, this.keep),
  );

  constructor(
    answer: (message: ClientMessage) => void,
    /** Back to the terminal once answered. */
    done: () => void,
  ) {
    const reply = (send: boolean): void => {
      answer({ type: 'secret_answer', send });
      this.element.hidden = true;
      done();
    };
    this.send.addEventListener('click', () => reply(true));
    this.keep.addEventListener('click', () => reply(false));
  }

  /** The server's `secret_warning`: the question opens (keys held) or is over. */
  shown(open: boolean): void {
    this.element.hidden = !open;
  }
}
