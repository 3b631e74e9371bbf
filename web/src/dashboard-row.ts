/**
 * One shell on the dashboard: a table row on a wide screen, a card on a phone (each cell
 * names its column for the card, `data-label`). The whole row opens the shell.
 */
import type { SessionInfo, WhoAmI } from '../../shared/src/api.ts';
import { appUrl } from './app-path.ts';
import { h, replaceChildren } from './dom.ts';
import {
  commandPreview,
  isOver,
  shellHostLabel,
  shellOwnerLabel,
  stateBadge,
} from './session-labels.ts';
import { opened } from './sharing-rules.ts';
import { formatElapsed } from './time-format.ts';

/** The columns, in order: the header's titles, the sort each one sets. */
export const COLUMNS = [
  { title: 'Agent or person', sort: 'owner' },
  { title: 'Shell', sort: 'dialect' },
  { title: 'State', sort: 'state' },
  { title: 'Command', sort: 'command' },
  { title: 'Elapsed', sort: 'elapsed' },
  { title: 'Last exit', sort: 'exit' },
  { title: 'Controller', sort: 'controller' },
  { title: 'Watching', sort: 'viewers' },
  // Last, so the columns people read most keep their places.
  { title: 'Host', sort: 'host' },
] as const;

export interface SessionRow {
  readonly element: HTMLTableRowElement;
  /** Redraws only when the shell or its call for a human changed since the last time. */
  update(session: SessionInfo, needsHuman: boolean): void;
}

/** `who`: whose shells get the "yours" mark (the shells this token opened). */
export function sessionRow(who: WhoAmI | null): SessionRow {
  const agentLink = h('a', { class: 'agent' });
  const yours = h('span', { class: 'yours', hidden: true }, 'yours');
  const cell = (index: number, attributes: Record<string, string> = {}) =>
    h('td', { role: 'cell', 'data-label': COLUMNS[index]?.title ?? '', ...attributes });
  const cells = {
    agent: cell(0, { class: 'owner-cell' }),
    dialect: cell(1),
    state: cell(2, { class: 'state-cell' }),
    command: cell(3, { class: 'command' }),
    elapsed: cell(4, { class: 'elapsed num' }),
    exit: cell(5, { class: 'num' }),
    controller: cell(6),
    viewers: cell(7, { class: 'num' }),
    host: cell(8, { class: 'host-cell' }),
  };
  cells.agent.append(agentLink, yours);
  const element = h('tr', { role: 'row', 'data-testid': 'session-row' }, ...Object.values(cells));
  // The whole row opens the shell; the link inside is what keyboards and screen readers use.
  element.addEventListener('click', (event) => {
    if ((event.target as Element).closest('a') === null && getSelection()?.toString() === '') {
      agentLink.click();
    }
  });
  let shown: SessionInfo | null = null;
  let shownNeedsHuman = false;
  return {
    element,
    update(session, needsHuman) {
      if (session === shown && needsHuman === shownNeedsHuman) return;
      shown = session;
      shownNeedsHuman = needsHuman;
      element.dataset.sessionId = session.id;
      element.dataset.agent = session.agent ?? '';
      element.dataset.owner = session.owner ?? '';
      element.dataset.dialect = session.dialect;
      element.dataset.host = session.host ?? '';
      // Before the state: whoever watches the state (a bench) reads when it changed.
      element.dataset.stateSince = session.stateSince ?? '';
      element.dataset.state = session.state;
      element.dataset.needsHuman = String(needsHuman);
      element.classList.toggle('needs-human', needsHuman);
      element.classList.toggle('gone', isOver(session.state));
      agentLink.href = appUrl(`/sessions/${encodeURIComponent(session.id)}`);
      agentLink.textContent = shellOwnerLabel(session);
      const mine = session.agent === null && opened(who, session);
      yours.hidden = !mine;
      element.dataset.yours = String(mine);
      cells.dialect.textContent = session.dialect;
      replaceChildren(cells.state, stateBadge(session, needsHuman));
      cells.command.textContent = session.command === null ? '' : commandPreview(session.command);
      cells.command.title = session.command ?? '';
      cells.command.classList.toggle('blank', session.command === null);
      const running = session.since !== null && session.command !== null;
      if (running) cells.elapsed.dataset.since = session.since ?? '';
      else delete cells.elapsed.dataset.since;
      cells.elapsed.textContent = running ? formatElapsed(session.since ?? '', Date.now()) : '';
      cells.elapsed.classList.toggle('blank', !running);
      cells.exit.textContent = session.lastExitCode === null ? '' : String(session.lastExitCode);
      cells.exit.classList.toggle('blank', session.lastExitCode === null);
      cells.exit.classList.toggle(
        'failed',
        session.lastExitCode !== null && session.lastExitCode !== 0,
      );
      cells.controller.textContent = session.controller ?? '';
      cells.controller.classList.toggle('blank', session.controller === null);
      cells.viewers.textContent = String(session.viewers);
      cells.host.textContent = shellHostLabel(session);
      // A shell of the server's own: said muted on a wide screen, left off a phone's card.
      cells.host.classList.toggle('local', session.host === undefined);
      cells.host.classList.toggle('blank', session.host === undefined);
    },
  };
}
