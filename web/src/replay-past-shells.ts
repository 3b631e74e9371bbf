/**
 * The dashboard's "Past shells": shells kept in history from earlier server runs (and this
 * run's that were let go), newest first — whose, when, how each ended — with a link to replay
 * each. Read once when the dashboard opens (`GET /api/sessions?state=all`).
 */

import type { SessionInfo } from '../../shared/src/api.ts';
import { authorization } from './credential.ts';
import { h, replaceChildren } from './dom.ts';
import { shellOwnerLabel } from './session-labels.ts';

/** Rows shown; older ones stay reachable through the API. */
const MAX_PAST_SHELLS_SHOWN = 200;

const ENDINGS: Record<NonNullable<SessionInfo['ending']>['kind'], string> = {
  exited: 'exited',
  killed: 'killed',
  reset: 'reset',
  closed: 'closed with the server',
  server_stopped: 'server stopped',
};

export function pastShellsSection(): HTMLElement {
  const body = h('tbody');
  const section = h(
    'section',
    { class: 'past-shells', 'aria-labelledby': 'past-shells-title', hidden: true },
    h('h2', { id: 'past-shells-title' }, 'Past shells'),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'sessions' },
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
  void load(section, body);
  return section;
}

async function load(section: HTMLElement, body: HTMLElement): Promise<void> {
  let sessions: SessionInfo[];
  try {
    const response = await fetch('/api/sessions?state=all', {
      credentials: 'omit',
      headers: { accept: 'application/json', ...authorization() },
    });
    if (!response.ok) return;
    sessions = (await response.json()) as SessionInfo[];
  } catch {
    return;
  }
  const past = sessions
    .filter((session) => session.state === 'ended')
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt))
    .slice(0, MAX_PAST_SHELLS_SHOWN);
  replaceChildren(body, ...past.map(pastRow));
  section.hidden = past.length === 0;
}

function pastRow(session: SessionInfo): HTMLElement {
  const replay = `/sessions/${encodeURIComponent(session.id)}/replay`;
  const ending = session.ending;
  const how =
    ending === null
      ? ''
      : `${ENDINGS[ending.kind]}${ending.exitCode === null ? '' : ` (${ending.exitCode})`}${ending.signal === null ? '' : ` (${ending.signal})`}`;
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
