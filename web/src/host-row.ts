/**
 * One shell host on the Hosts page: a table row on a wide screen, a card on a phone (each cell
 * names its column, `data-label`), with Drain and Forget. The row is kept across refreshes, so
 * a Forget being confirmed is not undone by the next poll.
 */
import type { HostInfo } from '../../shared/src/api.ts';
import { drainHost, type Fetched, forgetHost, problemText, undrainHost } from './api-client.ts';
import { appUrl } from './app-path.ts';
import { hostFilter } from './dashboard-order.ts';
import { h, replaceChildren } from './dom.ts';
import {
  labelWords,
  loadText,
  mayDrain,
  mayUndrain,
  shellsText,
  versionsText,
} from './host-list.ts';
import { formatClock, formatElapsed } from './time-format.ts';

export const HOST_COLUMNS = [
  'Name',
  'Labels',
  'State',
  'Shells',
  'Load',
  'Dialects',
  'Versions',
  'Last seen',
  '',
] as const;

/** What a row tells its page: an action was refused (the server's words), or it went through. */
export interface HostRowEvents {
  failed(text: string): void;
  changed(): void;
}

export interface HostRow {
  readonly element: HTMLTableRowElement;
  update(host: HostInfo): void;
}

export function hostRow(name: string, events: HostRowEvents): HostRow {
  const cell = (index: number, attributes: Record<string, string> = {}) =>
    h('td', { 'data-label': HOST_COLUMNS[index] ?? '', ...attributes });
  const cells = {
    name: cell(0, { class: 'host-name' }),
    labels: cell(1, { class: 'host-labels' }),
    state: cell(2),
    shells: cell(3, { class: 'num' }),
    load: cell(4, { class: 'num' }),
    dialects: cell(5),
    versions: cell(6),
    lastSeen: cell(7),
    actions: cell(8, { class: 'host-actions' }),
  };
  cells.name.textContent = name;
  // The shells it runs, on the dashboard.
  const shellsLink = h('a', { href: appUrl(`/?q=${encodeURIComponent(hostFilter(name))}`) });
  cells.shells.append(shellsLink);
  // One element per cell: on a phone the cell's content is one item of the card's grid.
  const labelList = h('span', {});
  cells.labels.append(labelList);
  const seenClock = h('time', {});
  const seenAgo = h('span', {});
  cells.lastSeen.append(h('span', {}, seenClock, ' · ', seenAgo, ' ago'));

  const act = (action: () => Promise<Fetched<unknown>>, refusal: string) => {
    void action().then((reply) => {
      if (reply.ok) events.changed();
      else events.failed(`${refusal}: ${problemText(reply.problem)}`);
    });
  };
  const drain = h('button', { type: 'button', class: 'quiet' }, 'Drain');
  drain.title = 'No new shells start here; the ones it runs go on';
  drain.addEventListener('click', () => act(() => drainHost(name), `${name} was not drained`));
  const undrain = h('button', { type: 'button', class: 'quiet' }, 'Undrain');
  undrain.title = 'New shells may start here again';
  undrain.addEventListener('click', () =>
    act(() => undrainHost(name), `${name} was not undrained`),
  );
  const forget = forgetControl(name, () =>
    act(() => forgetHost(name), `${name} was not forgotten`),
  );
  cells.actions.append(drain, undrain, forget);

  const element = h(
    'tr',
    { 'data-testid': 'host-row', 'data-name': name },
    ...Object.values(cells),
  );
  let shown: HostInfo | null = null;
  return {
    element,
    update(host) {
      if (shown !== null && JSON.stringify(shown) === JSON.stringify(host)) return;
      shown = host;
      element.dataset.state = host.state;
      // Spaces between them: copied or read aloud, labels read `gpu=1 zone=eu`.
      replaceChildren(
        labelList,
        ...labelWords(host.labels).flatMap((label, index) => [
          index > 0 && ' ',
          h('code', { class: 'host-label' }, label),
        ]),
      );
      cells.labels.classList.toggle('blank', Object.keys(host.labels).length === 0);
      replaceChildren(
        cells.state,
        h('span', { class: `state host-${host.state}`, 'data-testid': 'host-state' }, host.state),
      );
      shellsLink.textContent = shellsText(host);
      shellsLink.title = `The shells on ${name}`;
      cells.load.textContent = loadText(host);
      cells.dialects.textContent = host.dialects.join(', ');
      cells.versions.textContent = versionsText(host);
      seenClock.dateTime = host.lastSeen;
      seenClock.textContent = formatClock(host.lastSeen);
      seenAgo.dataset.since = host.lastSeen;
      seenAgo.textContent = formatElapsed(host.lastSeen, Date.now());
      drain.hidden = !mayDrain(host);
      undrain.hidden = !mayUndrain(host);
    },
  };
}

/** Forget, asked twice in the row: what waits on the host ends, and it cannot be undone. */
function forgetControl(name: string, confirmed: () => void): HTMLElement {
  const ask = h('button', { type: 'button', class: 'quiet danger' }, 'Forget');
  const yes = h('button', { type: 'button', class: 'danger' }, `Forget ${name}`);
  const no = h('button', { type: 'button', class: 'quiet' }, 'Keep it');
  const confirm = h(
    'span',
    { class: 'confirm', role: 'group', 'aria-label': `Confirm forgetting ${name}`, hidden: true },
    'Shells still waiting for it end now.',
    yes,
    no,
  );
  const asking = (on: boolean): void => {
    ask.hidden = on;
    confirm.hidden = !on;
  };
  ask.addEventListener('click', () => asking(true));
  no.addEventListener('click', () => asking(false));
  yes.addEventListener('click', () => {
    asking(false);
    confirmed();
  });
  return h('span', { class: 'forget-host' }, ask, confirm);
}
