/**
 * Minting a token from the Tokens page: a role, a name, and for an agent its id. The new
 * secret is shown once, with buttons that copy the login URL (a person's token) or the token
 * itself (an agent's, for its Authorization header); once dismissed it cannot be shown again.
 * An agent's token may carry placement labels (`gpu=1 zone=eu`): its shells go only to joined
 * hosts that have all of them. A host's token needs a name: the host joins under it.
 */
import type { TokenReply, TokenRequest } from '../../shared/src/api.ts';
import { parseLabel } from '../../shared/src/labels.ts';
import { ROLES } from '../../shared/src/vocabulary.ts';
import { mintToken, problemText } from './api-client.ts';
import { h, replaceChildren } from './dom.ts';

const ROLE_LABELS: Record<(typeof ROLES)[number], string> = {
  viewer: 'viewer — watches every shell',
  operator: 'operator — watches and takes over',
  admin: 'admin — everything',
  agent: 'agent — tool calls for one agent',
  host: 'host — joins as a shell host (named)',
};

/** `key=value` words separated by spaces or commas, or the first problem with them. */
function labelsFrom(text: string): { labels: Record<string, string> } | { error: string } {
  const labels: Record<string, string> = {};
  for (const word of text.split(/[\s,]+/).filter((w) => w !== '')) {
    const label = parseLabel(word);
    if ('error' in label) return label;
    labels[label.key] = label.value;
  }
  return { labels };
}

/** Labels as `key=value` words, or '' for none. */
function labelText(labels: Readonly<Record<string, string>> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

/** The form, and the one-time panel it fills after a mint; `minted` refreshes the list. */
export function tokenMintForm(publicUrl: string | null, minted: () => void): HTMLElement {
  const role = h(
    'select',
    { id: 'mint-role', 'data-testid': 'mint-role' },
    ...ROLES.map((value) => h('option', { value }, ROLE_LABELS[value])),
  );
  const name = h('input', {
    type: 'text',
    id: 'mint-name',
    maxlength: 100,
    placeholder: 'who holds it',
    autocomplete: 'off',
  });
  const agent = h('input', {
    type: 'text',
    id: 'mint-agent',
    maxlength: 64,
    pattern: '[A-Za-z0-9][A-Za-z0-9._\\-]{0,63}',
    placeholder: 'agent id, e.g. build-bot',
    autocomplete: 'off',
  });
  const labels = h('input', {
    type: 'text',
    id: 'mint-labels',
    maxlength: 2000,
    placeholder: 'placement labels, e.g. gpu=1 zone=eu',
    autocomplete: 'off',
  });
  const agentField = h(
    'span',
    { class: 'mint-agent', hidden: true },
    h('label', { for: 'mint-agent' }, 'Agent'),
    agent,
    h('label', { for: 'mint-labels' }, 'Labels'),
    labels,
  );
  const error = h('p', { class: 'notice-line', role: 'alert', 'data-testid': 'mint-error' });
  const secret = h('div', { class: 'minted', 'data-testid': 'minted', hidden: true });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Mint token');
  const form = h(
    'form',
    { class: 'form-row mint-form', 'data-testid': 'mint-form' },
    h('label', { for: 'mint-role' }, 'Role'),
    role,
    h('label', { for: 'mint-name' }, 'Name'),
    name,
    agentField,
    submit,
  );
  role.addEventListener('change', () => {
    agentField.hidden = role.value !== 'agent';
    agent.required = role.value === 'agent';
    name.required = role.value === 'host';
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.textContent = '';
    const placement = role.value === 'agent' ? labelsFrom(labels.value) : { labels: {} };
    if ('error' in placement) {
      error.textContent = placement.error;
      return;
    }
    const request: TokenRequest = {
      role: role.value as TokenRequest['role'],
      ...(name.value.trim() === '' ? {} : { name: name.value.trim() }),
      ...(role.value === 'agent' ? { agent: agent.value.trim() } : {}),
      ...(Object.keys(placement.labels).length > 0 ? { labels: placement.labels } : {}),
    };
    submit.disabled = true;
    void mintToken(request).then((reply) => {
      submit.disabled = false;
      if (!reply.ok) {
        error.textContent = problemText(reply.problem);
        return;
      }
      name.value = '';
      agent.value = '';
      labels.value = '';
      showOnce(secret, reply.value, publicUrl);
      minted();
    });
  });
  return h(
    'section',
    { class: 'mint', 'aria-label': 'Mint a token' },
    h('h2', {}, 'Mint a token'),
    form,
    error,
    secret,
  );
}

function showOnce(panel: HTMLElement, reply: TokenReply, publicUrl: string | null): void {
  const base = publicUrl ?? `${location.origin}/`;
  const loginUrl = `${base.replace(/\/?$/, '/')}login?token=${encodeURIComponent(reply.token)}`;
  const person = reply.role !== 'agent';
  const copied = h('span', { class: 'muted', 'data-testid': 'copied', 'aria-live': 'polite' });
  const copy = (label: string, text: string): HTMLElement =>
    h(
      'button',
      {
        type: 'button',
        onclick: () => {
          void navigator.clipboard.writeText(text).then(
            () => {
              copied.textContent = `${label} copied.`;
            },
            () => {
              copied.textContent =
                'The browser refused the clipboard: select the text and copy it.';
            },
          );
        },
      },
      `Copy ${label}`,
    );
  const done = h('button', { type: 'button', class: 'quiet' }, 'Done');
  done.addEventListener('click', () => {
    replaceChildren(panel);
    panel.hidden = true;
  });
  replaceChildren(
    panel,
    h(
      'p',
      {},
      h(
        'strong',
        {},
        `${reply.name} (${[reply.role, reply.agent, labelText(reply.labels)].filter(Boolean).join(' · ')})`,
      ),
      ' — copy it now: it is shown only this once.',
    ),
    person
      ? h('p', {}, 'Login URL: ', h('code', { 'data-testid': 'minted-login-url' }, loginUrl))
      : h(
          'p',
          {},
          'Send it as ',
          h('code', {}, 'Authorization: Bearer <token>'),
          ' from the agent’s harness.',
        ),
    h('p', {}, 'Token: ', h('code', { 'data-testid': 'minted-token' }, reply.token)),
    h(
      'div',
      { class: 'form-row' },
      person && copy('login URL', loginUrl),
      copy('token', reply.token),
      done,
      copied,
    ),
  );
  panel.hidden = false;
}
