/**
 * `/tokens`, the admin's page for the tokens they minted and the share links people made:
 * mint one (its secret shown once), search, narrow to a status, sort by any column; each
 * with its name, role, what it reaches, when it was made and last used, and Rename (minted
 * tokens) and Revoke (its holder is disconnected at once, every browser signed in with it
 * signed out). A table on a wide screen, cards on a phone.
 */
import type { TokenInfo } from '../../shared/src/api.ts';
import {
  fetchSettings,
  fetchTokens,
  problemText,
  renameToken,
  revokeToken,
  unreachable,
} from './api-client.ts';
import { h, replaceChildren } from './dom.ts';
import { pageFrame, showAccessProblem } from './page-frame.ts';
import { loadWhenReachable } from './reachability.ts';
import {
  arrangeTokens,
  DEFAULT_TOKEN_VIEW,
  reachesOf,
  STATUS_FILTERS,
  type StatusFilter,
  statusOf,
  type TokenSort,
  type TokenView,
} from './token-list.ts';
import { tokenMintForm } from './token-mint.ts';

const COLUMNS: readonly { title: string; sort: TokenSort | null }[] = [
  { title: 'Name', sort: 'name' },
  { title: 'Role', sort: 'role' },
  { title: 'Reaches', sort: 'reaches' },
  { title: 'Created', sort: 'created' },
  { title: 'Last used', sort: 'used' },
  { title: 'Status', sort: 'status' },
  { title: '', sort: null },
];

export async function showTokens(root: HTMLElement): Promise<void> {
  const frame = pageFrame(root);
  frame.hideConnection();
  const notice = h('p', { class: 'notice-line', role: 'alert', 'data-testid': 'tokens-notice' });
  const body = h('tbody', {});
  let view: TokenView = DEFAULT_TOKEN_VIEW;
  let tokens: TokenInfo[] = [];
  const sortButtons = new Map<TokenSort, HTMLElement>();
  const headers = COLUMNS.map(({ title, sort }) => {
    if (sort === null) return h('th', { scope: 'col' }, title);
    const button = h('button', { type: 'button', class: 'sort' }, title);
    sortButtons.set(sort, button);
    button.addEventListener('click', () => {
      if (view.sort !== sort) view = { ...view, sort, direction: 'ascending' };
      else
        view = { ...view, direction: view.direction === 'ascending' ? 'descending' : 'ascending' };
      render();
    });
    const cell = h('th', { scope: 'col', 'data-sort': sort, class: 'sorts' }, button);
    // Anywhere in the header cell sorts, as on the dashboard.
    cell.addEventListener('click', (event) => {
      if (event.target === cell) button.click();
    });
    return cell;
  });
  const table = h(
    'table',
    { class: 'sessions token-table', 'data-testid': 'tokens' },
    h('thead', {}, h('tr', {}, ...headers)),
    body,
  );
  const search = h('input', {
    type: 'search',
    id: 'token-search',
    class: 'filter',
    placeholder: 'name, role, agent or status',
    autocomplete: 'off',
  });
  const status = h(
    'select',
    { id: 'token-status' },
    ...STATUS_FILTERS.map((value) =>
      h('option', { value }, value === 'all' ? 'Every status' : value),
    ),
  );
  const shownCount = h('span', { class: 'muted shown-count', 'data-testid': 'tokens-shown' });
  const noMatch = h(
    'p',
    { class: 'muted', 'data-testid': 'tokens-no-match', hidden: true },
    'No token matches.',
  );
  search.addEventListener('input', () => {
    view = { ...view, search: search.value };
    render();
  });
  status.addEventListener('change', () => {
    view = { ...view, status: status.value as StatusFilter };
    render();
  });

  const render = (): void => {
    const shown = arrangeTokens(tokens, view);
    replaceChildren(body, ...shown.map((token) => row(token)));
    noMatch.hidden = shown.length > 0 || tokens.length === 0;
    shownCount.textContent =
      shown.length === tokens.length
        ? `${tokens.length} tokens`
        : `${shown.length} of ${tokens.length} tokens`;
    for (const [sort, button] of sortButtons) {
      const active = view.sort === sort;
      button.parentElement?.setAttribute('aria-sort', active ? view.direction : 'none');
      button.classList.toggle('active', active);
    }
  };

  const load = async (): Promise<boolean> => {
    const fetched = await loadWhenReachable(frame, fetchTokens, (result) => unreachable(result));
    if (!fetched.ok) {
      showAccessProblem(frame.main, fetched.problem);
      return false;
    }
    tokens = fetched.value;
    render();
    return true;
  };

  const fail = (text: string): void => {
    notice.textContent = text;
  };

  const row = (token: TokenInfo): HTMLElement => {
    const state = statusOf(token);
    const cell = (index: number, ...content: (Node | string | false)[]): HTMLElement =>
      h('td', { 'data-label': COLUMNS[index]?.title ?? '' }, ...content);
    const name = h(
      'td',
      { class: 'token-name', 'data-label': 'Name' },
      token.name,
      token.link && ' (link)',
    );
    const actions = h('td', { class: 'token-actions', 'data-label': '' });
    if (state !== 'revoked') {
      if (!token.link) actions.append(renameButton(token, name));
      actions.append(revokeButton(token));
    }
    return h(
      'tr',
      {
        'data-token-id': token.id,
        'data-name': token.name,
        'data-status': state,
        'data-testid': 'token-row',
      },
      name,
      cell(1, token.agent === null ? token.role : `${token.role} · ${token.agent}`),
      cell(2, reachesOf(token)),
      cell(3, when(token.createdAt)),
      cell(4, token.lastUsedAt === null ? 'never' : when(token.lastUsedAt)),
      cell(5, state),
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

  const settings = await fetchSettings();
  if (!(await load())) return;
  replaceChildren(
    frame.main,
    h('div', { class: 'page-head' }, h('h1', { class: 'page-title' }, 'Tokens')),
    h(
      'p',
      { class: 'muted' },
      'Every token you minted and every share link people made. Revoking one disconnects its holder at once. Also from a terminal: ',
      h('code', {}, 'jumpseat token create'),
      '.',
    ),
    tokenMintForm(settings.ok ? settings.value.publicUrl : null, () => void load()),
    notice,
    h(
      'div',
      { class: 'list-controls', 'data-testid': 'token-controls' },
      h('label', { for: 'token-search' }, 'Search'),
      search,
      h('label', { for: 'token-status' }, 'Status'),
      status,
      shownCount,
    ),
    h('div', { class: 'table-wrap' }, table),
    noMatch,
  );
}

function when(iso: string): string {
  return new Date(iso).toLocaleString();
}
