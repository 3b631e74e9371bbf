/**
 * Which shells the dashboard shows and in what order: the filter (every word must match the
 * agent, owner, dialect, command, state or host; a `host:NAME` term keeps only the shells on
 * that host), the sort (by a column, or "attention": those needing a human, then running
 * ones, first), grouping by agent or owner, and the counts per state the header shows. Pure:
 * the page renders what this decides.
 */
import type { SessionInfo, SessionState } from '../../shared/src/api.ts';
import { shellHostLabel, shellOwnerLabel, stateLabel } from './session-labels.ts';

export const SORT_KEYS = [
  'attention',
  'owner',
  'dialect',
  'state',
  'command',
  'elapsed',
  'exit',
  'controller',
  'viewers',
  'host',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortDirection = 'ascending' | 'descending';
export const GROUPINGS = ['none', 'agent', 'owner'] as const;
export type Grouping = (typeof GROUPINGS)[number];

export interface DashboardView {
  readonly filter: string;
  readonly sort: SortKey;
  readonly direction: SortDirection;
  readonly group: Grouping;
  /** Only shells in this state (a header count was chosen); null: every state. */
  readonly onlyState: CountKey | null;
}

export const DEFAULT_VIEW: DashboardView = {
  filter: '',
  sort: 'attention',
  direction: 'ascending',
  group: 'none',
  onlyState: null,
};

/** The header's counts: "needs a human" apart from waiting shells that do not yet. */
export type CountKey = SessionState | 'needs_human';
export const COUNT_ORDER: readonly CountKey[] = [
  'needs_human',
  'waiting_input',
  'running',
  'human_control',
  'starting',
  'idle',
  'exited',
];

export interface Group {
  /** null when the view is not grouped. */
  readonly label: string | null;
  readonly sessions: readonly SessionInfo[];
}

export type NeedsHumanTest = (session: SessionInfo) => boolean;

export function countKey(session: SessionInfo, needsHuman: NeedsHumanTest): CountKey {
  return needsHuman(session) ? 'needs_human' : session.state;
}

export function stateCounts(
  sessions: Iterable<SessionInfo>,
  needsHuman: NeedsHumanTest,
): Map<CountKey, number> {
  const counts = new Map<CountKey, number>();
  for (const session of sessions) {
    const key = countKey(session, needsHuman);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** What a filter word is matched against, lower-cased. */
function haystack(session: SessionInfo, needsHuman: boolean): string {
  return [
    session.agent ?? '',
    session.owner ?? '',
    session.agent === null ? 'person' : 'agent',
    session.dialect,
    session.command ?? '',
    session.state,
    stateLabel(session.state),
    needsHuman ? 'needs a human' : '',
    session.controller ?? '',
    shellHostLabel(session),
  ]
    .join('\n')
    .toLowerCase();
}

/**
 * `host:NAME`: the shells on that joined host, its name whole (`host:gpu-1` is not `gpu-10`),
 * so a link can narrow the list to one host. A bare `host:` (still being typed) narrows nothing.
 */
const HOST_TERM = /^host:(.*)$/;

export function matchesFilter(session: SessionInfo, filter: string, needsHuman: boolean): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = haystack(session, needsHuman);
  return words.every((word) => {
    const host = HOST_TERM.exec(word)?.[1];
    if (host === undefined) return text.includes(word);
    return host === '' || session.host?.toLowerCase() === host;
  });
}

/** The filter that shows only the shells on `host` (what the Hosts page links to). */
export function hostFilter(host: string): string {
  return `host:${host}`;
}

/** Attention order: who needs a human, then running, then the rest. */
const ATTENTION_RANK: Record<CountKey, number> = {
  needs_human: 0,
  running: 1,
  waiting_input: 2,
  human_control: 3,
  starting: 4,
  idle: 5,
  exited: 6,
  ended: 7,
};

/** `agent-2` before `agent-10`, as people count. */
const collator = new Intl.Collator(undefined, { numeric: true });

/**
 * What a column sorts a shell by: text (compared as people count) or a number (null last
 * when ascending). Read once per shell and sort, not twice per comparison: thousands of
 * shells sort in a frame.
 */
function sortValue(
  key: SortKey,
  session: SessionInfo,
  needsHuman: NeedsHumanTest,
  now: number,
): string | number {
  switch (key) {
    case 'attention':
    case 'state':
      return ATTENTION_RANK[countKey(session, needsHuman)];
    case 'owner':
      return shellOwnerLabel(session);
    case 'dialect':
      return session.dialect;
    case 'command':
      return session.command ?? '';
    case 'elapsed':
      return session.since === null || session.command === null
        ? Number.NEGATIVE_INFINITY
        : now - Date.parse(session.since);
    case 'exit':
      return session.lastExitCode ?? Number.NEGATIVE_INFINITY;
    case 'controller':
      return session.controller ?? '';
    case 'viewers':
      return session.viewers;
    case 'host':
      return shellHostLabel(session);
  }
}

/**
 * The collator's order of a set of texts, as numbers: comparing thousands of texts with the
 * collator costs a frame, comparing their places costs nothing. Kept while no new text comes
 * (owners seldom change; a new one re-sorts the texts shown).
 */
class CollationOrder {
  private places = new Map<string, number>();

  placesOf(texts: readonly string[]): ReadonlyMap<string, number> {
    if (texts.every((text) => this.places.has(text))) return this.places;
    const distinct = [...new Set(texts)].sort(collator.compare);
    this.places = new Map(distinct.map((text, index) => [text, index]));
    return this.places;
  }
}
const ownerOrder = new CollationOrder();
const valueOrder = new CollationOrder();

interface Sortable {
  readonly session: SessionInfo;
  value: number;
  readonly raw: string | number;
  label: number;
}

/** Ties go by owner, then dialect, then id: the order never flickers between redraws. */
const stable = (a: Sortable, b: Sortable): number =>
  a.label - b.label ||
  a.session.dialect.localeCompare(b.session.dialect) ||
  a.session.id.localeCompare(b.session.id);

function groupLabel(session: SessionInfo, group: Grouping): string {
  if (group === 'agent') return session.agent ?? 'People’s own shells';
  return session.owner ?? 'Agents’ shells';
}

/** The shells the view shows, filtered, sorted and (when asked) grouped. */
export function arrange(
  sessions: Iterable<SessionInfo>,
  view: DashboardView,
  needsHuman: NeedsHumanTest,
  now = Date.now(),
): Group[] {
  const sign = view.direction === 'descending' ? -1 : 1;
  const sortables = [...sessions]
    .filter(
      (session) =>
        (view.onlyState === null || countKey(session, needsHuman) === view.onlyState) &&
        matchesFilter(session, view.filter, needsHuman(session)),
    )
    .map(
      (session): Sortable => ({
        session,
        value: 0,
        raw: sortValue(view.sort, session, needsHuman, now),
        label: 0,
      }),
    );
  const owners = ownerOrder.placesOf(sortables.map((s) => shellOwnerLabel(s.session)));
  const texts = sortables.filter((s) => typeof s.raw === 'string').map((s) => s.raw as string);
  const values = texts.length === 0 ? null : valueOrder.placesOf(texts);
  for (const sortable of sortables) {
    sortable.label = owners.get(shellOwnerLabel(sortable.session)) ?? 0;
    sortable.value =
      typeof sortable.raw === 'number' ? sortable.raw : (values?.get(sortable.raw) ?? 0);
  }
  const shown = sortables
    .sort((a, b) => sign * (a.value - b.value) || stable(a, b))
    .map((sortable) => sortable.session);
  if (view.group === 'none') return [{ label: null, sessions: shown }];
  const groups = new Map<string, SessionInfo[]>();
  for (const session of shown) {
    const label = groupLabel(session, view.group);
    const members = groups.get(label);
    if (members === undefined) groups.set(label, [session]);
    else members.push(session);
  }
  // Groups in the order of their first member: a group needing a human comes first.
  return [...groups].map(([label, members]) => ({ label, sessions: members }));
}
