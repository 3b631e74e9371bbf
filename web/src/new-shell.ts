/**
 * "New shell" on the dashboard: a person (operator or admin) opens a shell of their own,
 * bash or — where the server runs it — pwsh, and lands on its page holding the controls.
 */
import type { Dialect } from '../../shared/src/api.ts';
import { fetchDialects, openShell, problemText } from './api-client.ts';
import { appUrl } from './app-path.ts';
import { h } from './dom.ts';

export function newShellControl(): HTMLElement {
  const dialect = h('select', { 'aria-label': 'Shell', name: 'dialect', hidden: true });
  const open = h(
    'button',
    { type: 'submit', class: 'primary', title: 'Open a shell of your own in the workspace' },
    'New shell',
  );
  const error = h('span', { class: 'form-error', role: 'alert' });
  const form = h('form', { class: 'new-shell', 'data-testid': 'new-shell' }, dialect, open, error);
  // Offer pwsh only where the server runs it; bash is always there.
  void fetchDialects().then((dialects) => {
    dialect.replaceChildren(...dialects.map((name) => h('option', { value: name }, name)));
    dialect.hidden = dialects.length < 2;
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.textContent = '';
    open.disabled = true;
    const chosen: Dialect = dialect.value === 'pwsh' ? 'pwsh' : 'bash';
    void openShell(chosen).then((reply) => {
      open.disabled = false;
      if (reply.ok) location.assign(appUrl(`/sessions/${encodeURIComponent(reply.value.id)}`));
      else error.textContent = `Could not open a shell: ${problemText(reply.problem)}`;
    });
  });
  return form;
}
