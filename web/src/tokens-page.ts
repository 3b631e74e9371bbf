/**
 * `/tokens`, the admin's page for the tokens they minted and the share links people made:
 * who each is (name, role, the one shell a link reaches), when it was made and last used,
 * and Rename (minted tokens: their names are the admin's to set) and Revoke (its holder is
 * disconnected at once, and every browser signed in with it is signed out).
 */
import type { TokenInfo } from '../../shared/src/api.ts';
import { fetchTokens, problemText, renameToken, revokeToken, unreachable } from './api-client.ts';
import { h, replaceChildren } from './dom.ts';
import { pageFrame, showAccessProblem } from './page-frame.ts';
import { loadWhenReachable } from './reachability.ts';

export async function showTokens(root: HTMLElement): Promise<void> {
  const frame = pageFrame(root);
  frame.setConnection('closed', 'not live');
  const notice = h('p', { class: 'notice-line', role: 'alert', 'data-testid': 'tokens-notice' });
  const body = h('tbody', {});
  const table = h(
    'table',
    { class: 'sessions', 'data-testid': 'tokens' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Name', 'Role', 'Reaches', 'Created', 'Last used', 'Status', ''].map((title) =>
          h('th', { scope: 'col' }, title),
        ),
      ),
    ),
    body,
  );

  const load = async (): Promise<boolean> => {
    const tokens = await loadWhenReachable(frame, fetchTokens, (result) => unreachable(result));
    if (!tokens.ok) {
      showAccessProblem(frame.main, tokens.problem);
      return false;
    }
    replaceChildren(body, ...tokens.value.map((token) => row(token)));
    return true;
  };

  const fail = (text: string): void => {
    notice.textContent = text;
  };

  const row = (token: TokenInfo): HTMLElement => {
    const status = statusOf(token);
    const name = h('td', { class: 'token-name' }, token.name, token.link && ' (link)');
    const actions = h('td', { class: 'token-actions' });
    if (status !== 'revoked') {
      if (!token.link) actions.append(renameButton(token, name));
      actions.append(revokeButton(token));
    }
    return h(
      'tr',
      { 'data-token-id': token.id, 'data-name': token.name, 'data-status': status },
      name,
      h('td', {}, token.agent === null ? token.role : `${token.role} · ${token.agent}`),
      h('td', {}, token.scope === null ? 'every shell its role may' : `shell ${token.scope}`),
      h('td', {}, when(token.createdAt)),
      h('td', {}, token.lastUsedAt === null ? 'never' : when(token.lastUsedAt)),
      h('td', {}, status),
      actions,
    );
  };

  const renameButton = (token: TokenInfo, cell: HTMLElement): HTMLElement => {
    const button = h('button', { type: 'button', class: 'quiet' }, 'Rename');
    button.addEventListener('click', () => {
      const input = h('input', {
        type: 'text',
        value: token.name,
        'aria-label': `New name for ${token.name}`,
        maxlength: 100,
      });
      const save = h('button', { type: 'submit', class: 'primary' }, 'Save');
      const form = h('form', { class: 'form-row' }, input, save);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        void renameToken(token.id, input.value).then((renamed) => {
          if (!renamed.ok) fail(problemText(renamed.problem));
          else void load();
        });
      });
      replaceChildren(cell, form);
      input.focus();
    });
    return button;
  };

  const revokeButton = (token: TokenInfo): HTMLElement => {
    const button = h('button', { type: 'button', class: 'quiet danger' }, 'Revoke');
    let armed = false;
    button.addEventListener('click', () => {
      // Two presses: a revoked token cannot be brought back.
      if (!armed) {
        armed = true;
        button.textContent = `Revoke ${token.name} for good`;
        return;
      }
      void revokeToken(token.id).then((revoked) => {
        if (!revoked.ok) fail(problemText(revoked.problem));
        else void load();
      });
    });
    return button;
  };

  if (!(await load())) return;
  replaceChildren(
    frame.main,
    h('div', { class: 'page-head' }, h('h1', { class: 'page-title' }, 'Tokens')),
    h(
      'p',
      { class: 'muted' },
      'Every token you minted and every share link people made. Revoking one disconnects its holder at once. Mint new ones with ',
      h('code', {}, 'jumpseat token create'),
      '.',
    ),
    notice,
    h('div', { class: 'table-wrap' }, table),
  );
}

function statusOf(token: TokenInfo): 'active' | 'revoked' | 'expired' {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= Date.now()) return 'expired';
  return 'active';
}

function when(iso: string): string {
  return new Date(iso).toLocaleString();
}
