/**
 * `/hosts`, the admin's page for the shell hosts that joined this control plane: each with its
 * labels, state, shells against capacity, load, dialects, versions and when it was last heard
 * from; Drain (no new shells there) and Forget (a host that is gone). The list follows the
 * hosts by asking again every few seconds. When no host has joined, it says why in plain words.
 */
import type { HostInfo, WebSettings } from '../../shared/src/api.ts';
import { fetchHosts, fetchSettings, unreachable } from './api-client.ts';
import { appOrigin, appUrl } from './app-path.ts';
import { h, placeChildren, replaceChildren } from './dom.ts';
import { hostsInOrder, joinCommands, noHostsText } from './host-list.ts';
import { HOST_COLUMNS, type HostRow, hostRow } from './host-row.ts';
import { NoticeLine } from './notice-line.ts';
import { pageFrame, showAccessProblem } from './page-frame.ts';
import { loadWhenReachable } from './reachability.ts';
import { tickElapsedClocks } from './time-format.ts';

/**
 * How often the list is asked for again: a host's state changes when its link drops or comes
 * back, and a few seconds is soon enough for a person watching; the list is a handful of rows.
 */
const HOSTS_POLL_MS = 3000;

export async function showHosts(root: HTMLElement): Promise<void> {
  document.title = 'Hosts · jumpseat';
  const frame = pageFrame(root);
  frame.hideConnection();
  const [initial, settings] = await loadWhenReachable(
    frame,
    () => Promise.all([fetchHosts(), fetchSettings()]),
    (results) => unreachable(...results),
  );
  if (!initial.ok) {
    showAccessProblem(frame.main, initial.problem);
    return;
  }
  const localShells = settings.ok ? settings.value.localShells : null;

  const notice = new NoticeLine();
  const rows = new Map<string, HostRow>();
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'sessions host-table', 'data-testid': 'hosts' },
    h('thead', {}, h('tr', {}, ...HOST_COLUMNS.map((title) => h('th', { scope: 'col' }, title)))),
    body,
  );
  const tableWrap = h('div', { class: 'table-wrap' }, table);
  const shownCount = h('span', { class: 'muted shown-count', 'data-testid': 'hosts-shown' });
  const noHosts = h(
    'div',
    { class: 'empty', 'data-testid': 'no-hosts' },
    h('p', {}, noHostsText(localShells)),
    h('pre', {}, joinCommands(joinOrigin(settings.ok ? settings.value : null))),
    h(
      'p',
      { class: 'muted' },
      'A host token can also be minted on the ',
      h('a', { href: appUrl('/tokens') }, 'Tokens'),
      ' page.',
    ),
  );
  const alsoLocal = h(
    'p',
    { class: 'muted', 'data-testid': 'hosts-local' },
    'This server also runs shells itself; they are not listed here.',
  );

  const events = {
    failed: (text: string) => notice.show(text, 'error', true),
    changed: () => {
      notice.clear();
      void refresh();
    },
  };
  const render = (hosts: readonly HostInfo[]): void => {
    const names = new Set(hosts.map((host) => host.name));
    for (const name of rows.keys()) if (!names.has(name)) rows.delete(name);
    const wanted = hostsInOrder(hosts).map((host) => {
      let row = rows.get(host.name);
      if (row === undefined) {
        row = hostRow(host.name, events);
        rows.set(host.name, row);
      }
      row.update(host);
      return row.element;
    });
    placeChildren(body, wanted);
    tableWrap.hidden = hosts.length === 0;
    noHosts.hidden = hosts.length > 0;
    alsoLocal.hidden = hosts.length === 0 || localShells !== true;
    shownCount.textContent = hosts.length === 1 ? '1 host' : `${hosts.length} hosts`;
  };

  /** Only the newest answer is shown: an older poll's, arriving late, is dropped. */
  let asked = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = async (): Promise<void> => {
    clearTimeout(timer);
    const mine = ++asked;
    const fetched = await fetchHosts();
    if (mine !== asked) return;
    if (fetched.ok) {
      frame.setAway(false);
      render(fetched.value);
    } else if (fetched.problem.kind === 'unreachable') {
      frame.setAway(true);
    } else {
      // Signed out, revoked, no longer an admin: the page says so and stops asking.
      showAccessProblem(frame.main, fetched.problem);
      return;
    }
    timer = setTimeout(() => void refresh(), HOSTS_POLL_MS);
  };

  replaceChildren(
    frame.main,
    h('div', { class: 'page-head' }, h('h1', { class: 'page-title' }, 'Hosts'), shownCount),
    h(
      'p',
      { class: 'muted' },
      'The machines that joined this server to run its shells. Drain one to start no new shells there (the ones it runs go on); forget one that is gone. Also from a terminal: ',
      h('code', {}, 'jumpseat hosts'),
      '.',
    ),
    notice.element,
    alsoLocal,
    noHosts,
    tableWrap,
  );
  render(initial.value);
  timer = setTimeout(() => void refresh(), HOSTS_POLL_MS);
  tickElapsedClocks(frame.main);
}

/** Where hosts dial in: the public URL when the server has one. */
function joinOrigin(settings: WebSettings | null): string {
  return settings?.publicUrl ?? appOrigin();
}
