/**
 * The first thing a share link's holder sees: a small form asking for the name the others
 * will see. It comes before the live connection, because a viewer's name in the presence
 * list is fixed when its connection joins.
 */
import type { WhoAmI } from '../../shared/src/api.ts';
import { problemText, putName } from './api-client.ts';
import { h, replaceChildren } from './dom.ts';

/** The server's bound on a display name (`NameRequest`). */
const MAX_NAME_CHARS = 60;

/** Shows the form in `main` until a name is accepted; resolves with the named identity. */
export function askName(main: HTMLElement, sharedBy: string | null): Promise<WhoAmI> {
  return new Promise((resolve) => {
    const input = h('input', {
      type: 'text',
      name: 'name',
      required: true,
      maxlength: MAX_NAME_CHARS,
      autocomplete: 'name',
      'aria-label': 'Your name',
      placeholder: 'Your name',
    });
    const error = h('p', { class: 'form-error', role: 'alert' });
    const join = h('button', { type: 'submit', class: 'primary' }, 'Join');
    const form = h(
      'form',
      { class: 'notice name-prompt', 'data-testid': 'name-prompt' },
      h(
        'h1',
        {},
        sharedBy === null ? 'Join a shared shell' : `${sharedBy} shared a shell with you`,
      ),
      h('p', {}, 'What is your name? Everyone watching this shell sees it next to yours.'),
      h('div', { class: 'form-row' }, input, join),
      error,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const name = input.value.trim();
      if (name === '') {
        error.textContent = 'Please give a name.';
        return;
      }
      join.disabled = true;
      void putName(name).then((reply) => {
        join.disabled = false;
        if (reply.ok) resolve(reply.value);
        else error.textContent = problemText(reply.problem);
      });
    });
    replaceChildren(main, form);
    input.focus();
  });
}
