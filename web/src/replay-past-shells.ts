/**
 * The dashboard's "Past shells": shells kept in history from earlier server runs (and this
 * run's that ended), newest first — whose, when, how each ended — with a link to replay each;
 * a page at a time, with a search over whose they are, the dialect and how they ended. Read
 * once when the dashboard opens (`GET /api/sessions?state=ended`).
 */

import type { SessionInfo } from '../../shared/src/api.ts';
import { fetchEndedSessions } from './api-client.ts';
import { appUrl } from './app-path.ts';
import { h, replaceChildren } from './dom.ts';
import { shellOwnerLabel } from './session-labels.ts';

/** Rows on one page of past shells. */
export const PAST_SHELLS_PAGE_SIZE = 20;

const ENDINGS: Record<NonNullable<SessionInfo['ending']>['kind'], string> = {
  exited: 'exited',
  killed: 'killed',
  reset: 'reset',
  closed: 'closed with the server',
  server_stopped: 'server stopped',
  host_lost: 'host lost',
};

/** The section, and a way to load the list again (the dashboard does after an outage). */
export function pastShellsSection(): { readonly element: HTMLElement; refresh(): void } {
  const body = h('tbody');
  const search = h('input', {
    type: 'search',
    id: 'past-search',
    class: 'filter',
    placeholder: 'agent, person, dialect or ending',
    autocomplete: 'off',
  });
  const newer = h('button', { type: 'button', class: 'quiet' }, '‹ Newer');
  const older = h('button', { type: 'button', class: 'quiet' }, 'Older ›');
  const where = h('span', { class: 'muted', 'data-testid': 'past-page' });
  const section = h(
    'section',
    { class: 'past-shells', 'aria-labelledby': 'past-shells-title', hidden: true },
    h('h2', { id: 'past-shells-title' }, 'Past shells'),
    h(
      'div',
      { class: 'list-controls' },
      h('label', { for: 'past-search' }, 'Search past shells'),
      search,
      h('span', { class: 'spacer' }),
      newer,
      where,
      older,
    ),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'sessions past-sessions' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Shell', 'Dialect', 'Started', 'Ended', 'How it ended', 'Last exit', ''].map(
              (title) => h('th', { scope: 'col' }, title),
            ),
          ),
        ),
        body,
      ),
    ),
  );
  let past: SessionInfo[] = [];
  let page = 0;
  const render = (): void => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const matching = past.filter((session) => {
      const text = searchText(session);
      return words.every((word) => text.includes(word));
    });
    const pages = Math.max(1, Math.ceil(matching.length / PAST_SHELLS_PAGE_SIZE));
    page = Math.min(page, pages - 1);
    const first = page * PAST_SHELLS_PAGE_SIZE;
    const shown = matching.slice(first, first + PAST_SHELLS_PAGE_SIZE);
    replaceChildren(body, ...shown.map(pastRow));
    where.textContent =
      matching.length === 0
        ? 'no match'
        : `${first + 1}–${first + shown.length} of ${matching.length}`;
    newer.disabled = page === 0;
    older.disabled = page >= pages - 1;
  };
  search.addEventListener('input', () => {
    page = 0;
    render();
  });
  newer.addEventListener('click', () => {
    page -= 1;
    render();
  });
  older.addEventListener('click', () => {
    page += 1;
    render();
  });
  const refresh = (): void => {
    void fetchEndedSessions().then((reply) => {
      if (!reply.ok) return;
      past = reply.value
        .filter((session) => session.state === 'ended')
        .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
      section.hidden = past.length === 0;
      render();
    });
  };
  refresh();
  return { element: section, refresh };
}

function endingText(session: SessionInfo): string {
  const ending = session.ending;
  if (ending === null) return '';
  return `${ENDINGS[ending.kind]}${ending.exitCode === null ? '' : ` (${ending.exitCode})`}${ending.signal === null ? '' : ` (${ending.signal})`}`;
}

function searchText(session: SessionInfo): string {
  return [shellOwnerLabel(session), session.dialect, endingText(session), session.id]
    .join('\n')
    .toLowerCase();
}

function pastRow(session: SessionInfo): HTMLElement {
  const replay = appUrl(`/sessions/${encodeURIComponent(session.id)}/replay`);
  const how = endingText(session);
  return h(
    'tr',
    {
      class: 'gone',
      'data-testid': 'past-shell-row',
      'data-session-id': session.id,
      'data-agent': session.agent ?? '',
      'data-dialect': session.dialect,
      'data-state': session.state,
    },
    h('td', {}, h('a', { class: 'agent', href: replay }, shellOwnerLabel(session))),
    h('td', {}, session.dialect),
    h('td', {}, h('time', { datetime: session.startedAt }, when(session.startedAt))),
    h('td', {}, session.endedAt && h('time', { datetime: session.endedAt }, when(session.endedAt))),
    h('td', { 'data-testid': 'past-shell-ending' }, how),
    h('td', { class: 'num' }, session.lastExitCode === null ? '' : String(session.lastExitCode)),
    h('td', {}, h('a', { href: replay, 'data-testid': 'replay-link' }, 'Replay')),
  );
}

/** `30 Nov 14:03:27` in the viewer's own time zone. */
function when(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const day = date.toLocaleDateString([], { day: 'numeric', month: 'short' });
  return `${day} ${date.toLocaleTimeString([], { hour12: false })}`;
}
