/**
 * `/`: every shell the server knows, live from `GET /api/live`, made for hundreds: a filter,
 * sorting by any column (by default those needing a human, then running ones, first),
 * grouping by agent or owner, and counts per state that narrow the list to one state. A shell
 * that has waited for input long enough calls for a human: its row is marked and a banner at
 * the top links to it. The view (filter, sort, grouping) is kept in the address.
 */
import type { SessionInfo, WebSettings } from '../../shared/src/api.ts';
import { LIVE_CLOSE, parseDashboardMessage } from '../../shared/src/live.ts';
import type { AccessProblem } from './api-client.ts';
import {
  endedAccess,
  fetchMe,
  fetchSessions,
  fetchSettings,
  signOut,
  ticketedSocketUrl,
  unreachable,
} from './api-client.ts';
import { appOrigin, appUrl } from './app-path.ts';
import { forgetCredential } from './credential.ts';
import {
  arrange,
  COUNT_ORDER,
  type CountKey,
  type DashboardView,
  DEFAULT_VIEW,
  GROUPINGS,
  type Grouping,
  SORT_KEYS,
  type SortKey,
  stateCounts,
} from './dashboard-order.ts';
import { COLUMNS, type SessionRow, sessionRow } from './dashboard-row.ts';
import { h, placeChildren, replaceChildren } from './dom.ts';
import { HumanAlerts } from './human-alerts.ts';
import { NeedsHuman } from './needs-human.ts';
import { newShellControl } from './new-shell.ts';
import { pageFrame, showAccessProblem } from './page-frame.ts';
import { loadWhenReachable } from './reachability.ts';
import { ReconnectingSocket } from './reconnecting-socket.ts';
import { pastShellsSection } from './replay-past-shells.ts';
import { RowHeights, rowWindow, WINDOW_ABOVE } from './row-window.ts';
import { shellOwnerLabel } from './session-labels.ts';
import { tickElapsedClocks } from './time-format.ts';

/** A background tab gets no animation frames: its title must still call for a human. */
const HIDDEN_RENDER_DELAY_MS = 250;

const COUNT_LABELS: Record<CountKey, string> = {
  needs_human: 'need a human',
  waiting_input: 'waiting',
  running: 'running',
  human_control: 'human in control',
  starting: 'starting',
  idle: 'idle',
  exited: 'exited',
  ended: 'ended',
};

const SORT_LABELS: Record<SortKey, string> = {
  attention: 'Needs a human first',
  owner: 'Agent or person',
  dialect: 'Shell',
  state: 'State',
  command: 'Command',
  elapsed: 'Elapsed',
  exit: 'Last exit',
  controller: 'Controller',
  viewers: 'Watching',
  host: 'Host',
};

export async function showDashboard(root: HTMLElement): Promise<void> {
  document.title = 'jumpseat';
  const frame = pageFrame(root);
  const [initial, me, settings] = await loadWhenReachable(
    frame,
    () => Promise.all([fetchSessions(), fetchMe(), fetchSettings()]),
    (results) => unreachable(...results),
  );
  // A share link reaches one shell only: its holder belongs on that shell's page.
  if (me.ok && me.value.scope !== null) {
    location.replace(appUrl(`/sessions/${encodeURIComponent(me.value.scope)}`));
    return;
  }
  const who = me.ok ? me.value : null;
  const mayOpenShells = me.ok && (me.value.role === 'admin' || me.value.role === 'operator');
  if (!initial.ok) {
    frame.setConnection('closed', 'not connected');
    showAccessProblem(frame.main, initial.problem);
    return;
  }
  const needsHuman = NeedsHuman.from(settings.ok ? settings.value : null);
  const needs = (session: SessionInfo): boolean => needsHuman.test(session);

  const sessions = new Map<string, SessionInfo>();
  const rows = new Map<string, SessionRow>();
  let view = readView();
  const alerts = new HumanAlerts();

  // The roles are said outright: the list's rows are laid out as flex rows, not as a table's
  // (style.css), and a browser may drop a table's meaning once its display changes.
  const body = h('tbody', { role: 'rowgroup' });
  const attention = h('section', { class: 'attention', 'aria-live': 'polite', hidden: true });
  const counts = h('div', {
    class: 'state-counts',
    role: 'group',
    'aria-label': 'Shells per state',
    'data-testid': 'state-counts',
  });
  const filter = h('input', {
    type: 'search',
    id: 'shell-filter',
    class: 'filter',
    placeholder: 'agent, owner, command, state or host:NAME',
    value: view.filter,
    autocomplete: 'off',
  });
  const group = h(
    'select',
    { id: 'shell-group' },
    ...GROUPINGS.map((value) =>
      h(
        'option',
        { value, selected: value === view.group },
        value === 'none' ? 'None' : value === 'agent' ? 'Agent' : 'Owner',
      ),
    ),
  );
  const sort = h(
    'select',
    { id: 'shell-sort' },
    ...SORT_KEYS.map((value) =>
      h('option', { value, selected: value === view.sort }, SORT_LABELS[value]),
    ),
  );
  const shownCount = h('span', { class: 'muted shown-count', 'data-testid': 'shown-count' });
  const noMatch = h('p', { class: 'no-match muted', 'data-testid': 'no-match', hidden: true });
  const sortButtons = new Map<SortKey, HTMLButtonElement>();
  const headers = COLUMNS.map((column) => {
    const button = h('button', { type: 'button', class: 'sort' }, column.title);
    sortButtons.set(column.sort, button);
    button.addEventListener('click', () => {
      // Ascending, then descending, then back to the attention order.
      if (view.sort !== column.sort) setView({ sort: column.sort, direction: 'ascending' });
      else if (view.direction === 'ascending') setView({ direction: 'descending' });
      else setView({ sort: 'attention', direction: 'ascending' });
    });
    const cell = h(
      'th',
      { scope: 'col', role: 'columnheader', 'data-sort': column.sort, class: 'sorts' },
      button,
    );
    // Anywhere in the header cell sorts, not only its words (the button stays the keyboard's).
    cell.addEventListener('click', (event) => {
      if (event.target === cell) button.click();
    });
    return cell;
  });
  const table = h(
    'table',
    { class: 'sessions live-sessions', role: 'table' },
    h('thead', { role: 'rowgroup' }, h('tr', { role: 'row', 'aria-rowindex': '1' }, ...headers)),
    body,
  );
  const tableWrap = h('div', { class: 'table-wrap' }, table);
  const pastShells = pastShellsSection();
  const example = `curl -s -X POST ${apiBase(settings.ok ? settings.value : null)}api/agents/demo/bash \\\n  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\\n  -d '{"command":"echo hello"}'`;
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
    h('pre', {}, example),
  );
  const controlsBar = h(
    'div',
    { class: 'list-controls', 'data-testid': 'list-controls' },
    h('label', { for: 'shell-filter' }, 'Filter'),
    filter,
    h('label', { for: 'shell-group' }, 'Group'),
    group,
    h('label', { for: 'shell-sort', class: 'sort-label' }, 'Sort'),
    sort,
    shownCount,
  );
  replaceChildren(
    frame.main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', { class: 'page-title' }, 'Shells'),
      counts,
      alerts.element,
      mayOpenShells && newShellControl(),
      who?.role === 'admin' &&
        h('a', { href: appUrl('/hosts'), class: 'quiet', 'data-testid': 'hosts-link' }, 'Hosts'),
      who?.role === 'admin' &&
        h('a', { href: appUrl('/tokens'), class: 'quiet', 'data-testid': 'tokens-link' }, 'Tokens'),
      who !== null && signOutButton(),
    ),
    attention,
    controlsBar,
    tableWrap,
    noMatch,
    empty,
    pastShells.element,
  );

  function setView(change: Partial<DashboardView>): void {
    view = { ...view, ...change };
    writeView(view);
    schedule();
  }
  filter.addEventListener('input', () => setView({ filter: filter.value }));
  group.addEventListener('change', () => setView({ group: group.value as Grouping }));
  sort.addEventListener('change', () =>
    setView({ sort: sort.value as SortKey, direction: 'ascending' }),
  );

  let flipTimer: ReturnType<typeof setTimeout> | undefined;
  let shownCounts = '';
  /**
   * What the list shows, in order: group headings and shells. Rebuilt when a shell or the
   * view changed; between, a scroll only moves which of them are drawn (the row window).
   */
  let items: ListItem[] = [];
  let itemsStale = true;
  let groupLabels = new Set<string>();
  const heights = new RowHeights();
  const groupRows = new Map<string, HTMLTableRowElement>();
  const spacerAbove = spacerRow();
  const spacerBelow = spacerRow();
  const keyOf = (item: ListItem): string =>
    item.kind === 'group' ? `group:${item.label}` : item.session.id;
  const arrangeItems = (now: number): number => {
    for (const [id, row] of rows) {
      if (!sessions.has(id)) {
        row.element.remove();
        rowSizes.unobserve(row.element);
        rows.delete(id);
        heights.forget(id);
      }
    }
    const groups = arrange(sessions.values(), view, needs, now);
    const next: ListItem[] = [];
    let shown = 0;
    for (const { label, sessions: members } of groups) {
      if (label !== null) next.push({ kind: 'group', label, count: members.length });
      for (const session of members) next.push({ kind: 'session', session });
      shown += members.length;
    }
    items = next;
    groupLabels = new Set(groups.flatMap((group) => (group.label === null ? [] : [group.label])));
    return shown;
  };
  const elementOf = (item: ListItem): HTMLTableRowElement => {
    if (item.kind === 'group') {
      let row = groupRows.get(item.label);
      if (row === undefined) {
        row = groupRow(item.label);
        groupRows.set(item.label, row);
      }
      setGroupCount(row, item.count);
      return row;
    }
    let row = rows.get(item.session.id);
    if (row === undefined) {
      row = sessionRow(who);
      rows.set(item.session.id, row);
    }
    row.update(item.session, needs(item.session));
    return row.element;
  };
  /** What the last placement drew, for measuring once the frame's own layout is done. */
  let drawn: { readonly start: number; readonly rows: readonly HTMLTableRowElement[] } | null =
    null;
  /** Set when the viewport was at the page's end: it stays there when measured heights move it. */
  let stickToEnd = false;
  /**
   * Draws the rows in and near the viewport (every row when the list is short). Layout is read
   * only before anything is written and after the frame's own layout (`measureRows`), never
   * between: a read after a write makes the browser lay the table out once more in the frame.
   */
  const placeRows = (): void => {
    // Read before writing: the layout is still the last frame's, so this costs nothing.
    const top = -body.getBoundingClientRect().top;
    const page = document.documentElement;
    const atEnd = scrollY > 0 && scrollY + innerHeight >= page.scrollHeight - 2;
    const range = rowWindow(
      items.length,
      (index) => {
        const item = items[index];
        return item === undefined ? 0 : heights.of(keyOf(item));
      },
      top,
      innerHeight,
    );
    const wanted: HTMLTableRowElement[] = [];
    if (range.above > 0) wanted.push(spacerAbove);
    const placed: HTMLTableRowElement[] = [];
    for (let index = range.start; index < range.end; index++) {
      const item = items[index] as ListItem;
      const element = elementOf(item);
      // Screen readers count every row, not only those drawn (the header is row 1).
      const rowIndex = String(index + 2);
      if (element.getAttribute('aria-rowindex') !== rowIndex)
        element.setAttribute('aria-rowindex', rowIndex);
      wanted.push(element);
      placed.push(element);
    }
    if (range.below > 0) wanted.push(spacerBelow);
    for (const [label, row] of groupRows)
      if (!groupLabels.has(label)) {
        row.remove();
        groupRows.delete(label);
      }
    placeChildren(body, wanted);
    const rowCount = String(items.length + 1);
    if (table.getAttribute('aria-rowcount') !== rowCount)
      table.setAttribute('aria-rowcount', rowCount);
    if (items.length <= WINDOW_ABOVE) {
      drawn = null;
      return;
    }
    // The space of the rows not drawn, at their heights as known now (measured, else the
    // average); `measureRows` corrects it a frame later when a row drawn differs.
    setSpacer(spacerAbove, range.above);
    setSpacer(spacerBelow, range.below);
    drawn = { start: range.start, rows: placed };
    for (const row of placed) {
      if (observed.has(row)) continue;
      observed.add(row);
      rowSizes.observe(row);
    }
    stickToEnd = atEnd && range.end === items.length;
  };
  /**
   * After the frame's layout (a resize observer's call: nothing is laid out again to answer
   * it): the rows drawn are measured, and when a height differs from the one assumed, or the
   * rows drawn do not cover the viewport (estimates moved them), the window is placed again
   * in the next frame.
   */
  const measureRows = (): void => {
    if (drawn === null || drawn.rows.length === 0) return;
    const { start, rows: placed } = drawn;
    const boxes = placed.map((element) => element.getBoundingClientRect());
    let moved = false;
    for (let at = 0; at < placed.length; at++) {
      const item = items[start + at];
      const box = boxes[at] as DOMRect;
      // Only rows in the viewport: one outside it is not laid out inside (style.css), so its
      // box is the height it stood for, not its own.
      if (item === undefined || !placed[at]?.isConnected || box.height === 0) continue;
      if (box.bottom <= 0 || box.top >= innerHeight) continue;
      // The distance to the next row's top (a phone's cards have margins between them).
      const next = boxes[at + 1];
      const height = next === undefined ? box.height : next.top - box.top;
      const key = keyOf(item);
      if (Math.abs(heights.of(key) - height) > 0.5) moved = true;
      heights.set(key, height);
    }
    // Whoever went to the end stays there when the measured heights move it (a scroll is no
    // layout: nothing is laid out again for it).
    const page = document.documentElement;
    if (stickToEnd && scrollY + innerHeight < page.scrollHeight - 2)
      scrollTo(scrollX, page.scrollHeight);
    const firstDrawn = (boxes[0] as DOMRect).top;
    const lastDrawn = (boxes[boxes.length - 1] as DOMRect).bottom;
    const uncovered =
      (firstDrawn > 0 && start > 0) ||
      (lastDrawn < innerHeight && start + placed.length < items.length);
    if ((moved || uncovered) && settleFrames++ < 5) scheduleRows();
    else if (!moved && !uncovered) settleFrames = 0;
  };
  /** Rows are observed once (observing again would report them again): drawn anew, a row
   * is reported as its size goes from nothing to its height. */
  const rowSizes = new ResizeObserver(measureRows);
  const observed = new WeakSet<HTMLTableRowElement>();
  let settleFrames = 0;
  const render = (): void => {
    pending = false;
    const started = performance.now();
    if (!itemsStale) {
      placeRows();
      return;
    }
    itemsStale = false;
    const now = Date.now();
    const shown = arrangeItems(now);
    placeRows();
    const total = sessions.size;
    tableWrap.hidden = total === 0 || shown === 0;
    empty.hidden = total !== 0;
    noMatch.hidden = total === 0 || shown !== 0;
    noMatch.textContent = 'No shell matches this filter.';
    shownCount.textContent = shown === total ? `${total} shells` : `${shown} of ${total} shells`;
    for (const [key, button] of sortButtons) {
      const th = button.parentElement;
      const active = view.sort === key;
      th?.setAttribute('aria-sort', active ? view.direction : 'none');
      button.classList.toggle('active', active);
    }
    sort.value = view.sort;
    // Rebuilt only when a count changes: a chip with the keyboard's focus keeps it.
    const perState = stateCounts(sessions.values(), needs);
    const countsKey = `${view.onlyState}|${[...perState].join(';')}`;
    if (countsKey !== shownCounts) {
      shownCounts = countsKey;
      const focused = counts.contains(document.activeElement)
        ? (document.activeElement as HTMLElement).dataset.state
        : undefined;
      renderCounts(counts, perState, view.onlyState, (key) =>
        setView({ onlyState: view.onlyState === key ? null : key }),
      );
      if (focused !== undefined)
        counts.querySelector<HTMLElement>(`[data-state="${focused}"]`)?.focus();
    }
    const needing = [...sessions.values()]
      .filter(needs)
      .sort((a, b) => shellOwnerLabel(a).localeCompare(shellOwnerLabel(b)));
    renderAttention(attention, needing);
    alerts.update(needing);
    // A waiting shell starts to need a human without any message: redraw then.
    clearTimeout(flipTimer);
    const flip = needsHuman.nextChangeIn(sessions.values(), now);
    if (flip !== null) flipTimer = setTimeout(schedule, flip + 1);
    // What one redraw costs, for the dashboard benches (e2e/bench/).
    performance.measure('jumpseat:dashboard-render', { start: started });
  };
  let pending = false;
  /** One redraw per animation frame, however many updates arrived since the last. */
  function schedule(): void {
    itemsStale = true;
    scheduleRows();
  }
  /** A redraw of which rows are drawn only (a scroll, a resize). */
  function scheduleRows(): void {
    if (pending) return;
    pending = true;
    if (document.hidden) setTimeout(render, HIDDEN_RENDER_DELAY_MS);
    else requestAnimationFrame(render);
  }
  addEventListener(
    'scroll',
    () => {
      // Only a long list has rows to bring in.
      if (items.length > WINDOW_ABOVE) scheduleRows();
    },
    { passive: true },
  );
  addEventListener('resize', () => {
    heights.clear();
    scheduleRows();
  });
  // The keyboard's focus moves ahead of the frames: each Tab waits for no redraw, so one that
  // lands on the last row drawn, before a slow frame drew the rows after it, would walk off
  // the list to the page's start. The window follows a focused row at once.
  body.addEventListener('focusin', (event) => {
    if (items.length <= WINDOW_ABOVE || !(event.target instanceof Element)) return;
    const row = event.target.closest('tr');
    if (row === null || row.parentElement !== body) return;
    row.scrollIntoView({ block: 'nearest' });
    // Updates not yet arranged (busy shells) are arranged now too, not skipped.
    if (itemsStale) render();
    else placeRows();
  });

  const replaceAll = (list: readonly SessionInfo[]): void => {
    sessions.clear();
    for (const session of list) sessions.set(session.id, session);
  };
  replaceAll(initial.value);
  render();
  performance.mark('jumpseat:dashboard-rendered');

  let wasAway = false;
  const socket = new ReconnectingSocket({
    url: () => ticketedSocketUrl('/api/live'),
    onText(text) {
      const parsed = parseDashboardMessage(text);
      if (!parsed.ok) return;
      const message = parsed.message;
      if (message.type === 'sessions') replaceAll(message.sessions);
      else if (message.type === 'session') sessions.set(message.session.id, message.session);
      else sessions.delete(message.id);
      schedule();
    },
    onBinary() {},
    onState: (state, detail, code) => {
      frame.setConnection(state, detail);
      // The credential was revoked (or its time ran out): what it showed goes at once.
      if (state === 'closed' && code === LIVE_CLOSE.revoked) {
        endAccess(endedAccess(detail, true));
        return;
      }
      // Back after an outage: shells may have ended meanwhile (a restart ends them all).
      if (state === 'live' && wasAway) {
        wasAway = false;
        pastShells.refresh();
      }
      if (state === 'reconnecting') wasAway = true;
    },
    async onRepeatedFailure() {
      const check = await fetchSessions();
      // Away (a restart, the network): keep trying; the socket's pauses are capped.
      if (!check.ok && check.problem.kind !== 'unreachable') {
        socket.stop('not connected');
        if (check.problem.kind === 'revoked' || check.problem.kind === 'expired')
          endAccess(check.problem);
        else showAccessProblem(frame.main, check.problem);
      }
    },
  });
  /** Clears every shell from the page and says which credential ended and why. */
  function endAccess(problem: AccessProblem): void {
    clearTimeout(flipTimer);
    sessions.clear();
    rows.clear();
    frame.setConnection('closed', problem.kind === 'expired' ? 'link expired' : 'access revoked');
    // The notice says what ended; a red pill beside it would only repeat it.
    frame.hideConnection();
    showAccessProblem(frame.main, problem);
    document.title = 'jumpseat';
  }
  socket.start();
  tickElapsedClocks(frame.main);
}

/** Where the API is reached, for the example: the public URL when the server has one. */
function apiBase(settings: WebSettings | null): string {
  return settings?.publicUrl ?? appOrigin();
}

/** One row of the list: a group's heading or a shell. */
type ListItem =
  | { readonly kind: 'group'; readonly label: string; readonly count: number }
  | { readonly kind: 'session'; readonly session: SessionInfo };

function groupRow(label: string): HTMLTableRowElement {
  return h(
    'tr',
    { class: 'group-row', role: 'row', 'data-testid': 'group-row', 'data-group': label },
    h(
      'th',
      { colspan: COLUMNS.length, scope: 'rowgroup', role: 'rowheader' },
      label,
      h('span', { class: 'muted group-count' }),
    ),
  );
}

function setGroupCount(row: HTMLTableRowElement, count: number): void {
  const text = ` · ${count} ${count === 1 ? 'shell' : 'shells'}`;
  const span = row.querySelector('.group-count');
  if (span !== null && span.textContent !== text) span.textContent = text;
}

/** Stands for the rows not drawn above or below those that are, at their height. */
function spacerRow(): HTMLTableRowElement {
  return h(
    'tr',
    { class: 'row-spacer', 'aria-hidden': 'true' },
    h('td', { colspan: COLUMNS.length }),
  );
}

function setSpacer(row: HTMLTableRowElement, height: number): void {
  // On the row itself: a phone's cards lay the cell out as no box of its own.
  const value = `${Math.round(height)}px`;
  if (row.style.height !== value) row.style.height = value;
}

function renderCounts(
  element: HTMLElement,
  counts: ReadonlyMap<CountKey, number>,
  only: CountKey | null,
  choose: (key: CountKey) => void,
): void {
  replaceChildren(
    element,
    ...COUNT_ORDER.filter((key) => (counts.get(key) ?? 0) > 0 || key === only).map((key) =>
      h(
        'button',
        {
          type: 'button',
          class: `count count-${key}`,
          'data-state': key,
          'aria-pressed': String(only === key),
          title: only === key ? 'Show every state' : `Show only ${COUNT_LABELS[key]}`,
          onclick: () => choose(key),
        },
        h('strong', {}, String(counts.get(key) ?? 0)),
        ` ${key === 'needs_human' && counts.get(key) === 1 ? 'needs a human' : COUNT_LABELS[key]}`,
      ),
    ),
  );
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
        { href: appUrl(`/sessions/${encodeURIComponent(session.id)}`) },
        `${shellOwnerLabel(session)} (${session.dialect})`,
      ),
    ]),
  );
}

/** The view from the address (`?q=&sort=&dir=&group=&state=`), defaults for the rest. */
function readView(): DashboardView {
  const query = new URLSearchParams(location.search);
  const pick = <T extends string>(value: string | null, allowed: readonly T[], fallback: T): T =>
    allowed.find((candidate) => candidate === value) ?? fallback;
  return {
    filter: query.get('q') ?? DEFAULT_VIEW.filter,
    sort: pick(query.get('sort'), SORT_KEYS, DEFAULT_VIEW.sort),
    direction: query.get('dir') === 'descending' ? 'descending' : 'ascending',
    group: pick(query.get('group'), GROUPINGS, DEFAULT_VIEW.group),
    onlyState: COUNT_ORDER.find((key) => key === query.get('state')) ?? null,
  };
}

function writeView(view: DashboardView): void {
  const query = new URLSearchParams();
  if (view.filter !== '') query.set('q', view.filter);
  if (view.sort !== DEFAULT_VIEW.sort) query.set('sort', view.sort);
  if (view.direction !== DEFAULT_VIEW.direction) query.set('dir', view.direction);
  if (view.group !== DEFAULT_VIEW.group) query.set('group', view.group);
  if (view.onlyState !== null) query.set('state', view.onlyState);
  const search = query.toString();
  history.replaceState(null, '', search === '' ? location.pathname : `?${search}`);
}

/** Signs this browser out: its credential stops working on the server and is forgotten here. */
function signOutButton(): HTMLElement {
  const button = h('button', { type: 'button', class: 'quiet' }, 'Sign out');
  button.addEventListener('click', () => {
    void signOut().finally(() => {
      forgetCredential();
      location.replace(appUrl('/'));
    });
  });
  return button;
}
