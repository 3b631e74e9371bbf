/**
 * `/`: every shell the server knows, live from `GET /api/live`. A shell waiting for input
 * calls for a human: its row is marked and a banner at the top links to it.
 */
import type { SessionInfo, WhoAmI } from '../../shared/src/api.ts';
import { parseDashboardMessage } from '../../shared/src/live.ts';
import { fetchMe, fetchSessions, signOut, ticketedSocketUrl } from './api-client.ts';
import { forgetCredential } from './credential.ts';
import { h, replaceChildren } from './dom.ts';
import { newShellControl } from './new-shell.ts';
import { pageFrame, showAccessProblem } from './page-frame.ts';
import { ReconnectingSocket } from './reconnecting-socket.ts';
import { pastShellsSection } from './replay-past-shells.ts';
import { commandPreview, isOver, shellOwnerLabel, stateBadge } from './session-labels.ts';
import { opened } from './sharing-rules.ts';
import { formatElapsed, tickElapsedClocks } from './time-format.ts';

interface Row {
  readonly element: HTMLTableRowElement;
  update(session: SessionInfo): void;
}

export async function showDashboard(root: HTMLElement): Promise<void> {
  document.title = 'jumpseat';
  const frame = pageFrame(root);
  const [initial, me] = await Promise.all([fetchSessions(), fetchMe()]);
  // A share link reaches one shell only: its holder belongs on that shell's page.
  if (me.ok && me.value.scope !== null) {
    location.replace(`/sessions/${encodeURIComponent(me.value.scope)}`);
    return;
  }
  const who = me.ok ? me.value : null;
  const mayOpenShells = me.ok && (me.value.role === 'admin' || me.value.role === 'operator');
  if (!initial.ok) {
    frame.setConnection('closed', 'not connected');
    showAccessProblem(frame.main, initial.problem);
    return;
  }

  const sessions = new Map<string, SessionInfo>();
  const rows = new Map<string, Row>();
  const body = h('tbody');
  const attention = h('section', { class: 'attention', 'aria-live': 'polite', hidden: true });
  const empty = h(
    'div',
    { class: 'empty' },
    h(
      'p',
      {},
      mayOpenShells
        ? 'No shells yet. Open one of your own with New shell, or an agent’s first call starts one:'
        : 'No shells yet. A shell starts on an agent’s first call:',
    ),
    h(
      'pre',
      {},
      `curl -s -X POST ${location.origin}/api/agents/demo/bash \\\n  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\\n  -d '{"command":"echo hello"}'`,
    ),
  );
  const table = h(
    'table',
    { class: 'sessions' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...[
          'Agent or person',
          'Shell',
          'State',
          'Command',
          'Elapsed',
          'Last exit',
          'Controller',
          'Watching',
        ].map((title) => h('th', { scope: 'col' }, title)),
      ),
    ),
    body,
  );
  const tableWrap = h('div', { class: 'table-wrap' }, table);
  replaceChildren(
    frame.main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', { class: 'page-title' }, 'Shells'),
      mayOpenShells && newShellControl(),
      who?.role === 'admin' &&
        h('a', { href: '/tokens', class: 'quiet', 'data-testid': 'tokens-link' }, 'Tokens'),
      who !== null && signOutButton(),
    ),
    attention,
    tableWrap,
    empty,
    pastShellsSection(),
  );

  const render = (): void => {
    const ordered = [...sessions.values()].sort(
      (a, b) =>
        shellOwnerLabel(a).localeCompare(shellOwnerLabel(b)) ||
        a.dialect.localeCompare(b.dialect) ||
        a.id.localeCompare(b.id),
    );
    for (const [id, row] of rows) {
      if (!sessions.has(id)) {
        row.element.remove();
        rows.delete(id);
      }
    }
    ordered.forEach((session, index) => {
      let row = rows.get(session.id);
      if (row === undefined) {
        row = sessionRow(who);
        rows.set(session.id, row);
      }
      row.update(session);
      if (body.children[index] !== row.element)
        body.insertBefore(row.element, body.children[index] ?? null);
    });
    tableWrap.hidden = ordered.length === 0;
    empty.hidden = ordered.length !== 0;
    renderAttention(
      attention,
      ordered.filter((session) => session.state === 'waiting_input'),
    );
  };

  const replaceAll = (list: readonly SessionInfo[]): void => {
    sessions.clear();
    for (const session of list) sessions.set(session.id, session);
  };
  replaceAll(initial.value);
  render();

  const socket = new ReconnectingSocket({
    url: () => ticketedSocketUrl('/api/live'),
    onText(text) {
      const parsed = parseDashboardMessage(text);
      if (!parsed.ok) return;
      const message = parsed.message;
      if (message.type === 'sessions') replaceAll(message.sessions);
      else if (message.type === 'session') sessions.set(message.session.id, message.session);
      else sessions.delete(message.id);
      render();
    },
    onBinary() {},
    onState: (state, detail) => frame.setConnection(state, detail),
    async onRepeatedFailure() {
      const check = await fetchSessions();
      if (!check.ok) {
        socket.stop('not connected');
        showAccessProblem(frame.main, check.problem);
      }
    },
  });
  socket.start();
  tickElapsedClocks(frame.main);
}

/** `who`: whose shells get the "yours" mark (the shells this token opened). */
function sessionRow(who: WhoAmI | null): Row {
  const agentLink = h('a', { class: 'agent' });
  const yours = h('span', { class: 'yours', hidden: true }, 'yours');
  const cells = {
    agent: h('td', {}, agentLink, yours),
    dialect: h('td', {}),
    state: h('td', {}),
    command: h('td', { class: 'command' }),
    elapsed: h('td', { class: 'elapsed num' }),
    exit: h('td', { class: 'num' }),
    controller: h('td', {}),
    viewers: h('td', { class: 'num' }),
  };
  const element = h('tr', { 'data-testid': 'session-row' }, ...Object.values(cells));
  // The whole row opens the shell; the link inside is what keyboards and screen readers use.
  element.addEventListener('click', (event) => {
    if ((event.target as Element).closest('a') === null && getSelection()?.toString() === '') {
      agentLink.click();
    }
  });
  return {
    element,
    update(session) {
      element.dataset.sessionId = session.id;
      element.dataset.agent = session.agent ?? '';
      element.dataset.owner = session.owner ?? '';
      element.dataset.dialect = session.dialect;
      element.dataset.state = session.state;
      element.classList.toggle('needs-human', session.state === 'waiting_input');
      element.classList.toggle('gone', isOver(session.state));
      agentLink.href = `/sessions/${encodeURIComponent(session.id)}`;
      agentLink.textContent = shellOwnerLabel(session);
      const mine = session.agent === null && opened(who, session);
      yours.hidden = !mine;
      element.dataset.yours = String(mine);
      cells.dialect.textContent = session.dialect;
      replaceChildren(cells.state, stateBadge(session));
      cells.command.textContent = session.command === null ? '' : commandPreview(session.command);
      cells.command.title = session.command ?? '';
      if (session.since === null || session.command === null) delete cells.elapsed.dataset.since;
      else cells.elapsed.dataset.since = session.since;
      cells.elapsed.textContent =
        session.since === null || session.command === null
          ? ''
          : formatElapsed(session.since, Date.now());
      cells.exit.textContent = session.lastExitCode === null ? '' : String(session.lastExitCode);
      cells.exit.classList.toggle(
        'failed',
        session.lastExitCode !== null && session.lastExitCode !== 0,
      );
      cells.controller.textContent = session.controller ?? '';
      cells.viewers.textContent = String(session.viewers);
    },
  };
}

function renderAttention(section: HTMLElement, waiting: readonly SessionInfo[]): void {
  section.hidden = waiting.length === 0;
  // The tab's title calls for a human too, for a dashboard left in a background tab.
  document.title = waiting.length === 0 ? 'jumpseat' : `(${waiting.length} waiting) jumpseat`;
  if (waiting.length === 0) return;
  replaceChildren(
    section,
    h(
      'strong',
      {},
      waiting.length === 1
        ? 'A shell is waiting for input: '
        : `${waiting.length} shells are waiting for input: `,
    ),
    ...waiting.flatMap((session, index) => [
      index > 0 ? ', ' : '',
      h(
        'a',
        { href: `/sessions/${encodeURIComponent(session.id)}` },
        `${shellOwnerLabel(session)} (${session.dialect})`,
      ),
    ]),
  );
}

/** Signs this browser out: its credential stops working on the server and is forgotten here. */
function signOutButton(): HTMLElement {
  const button = h('button', { type: 'button', class: 'quiet' }, 'Sign out');
  button.addEventListener('click', () => {
    void signOut().finally(() => {
      forgetCredential();
      location.replace('/');
    });
  });
  return button;
}
