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

type Compare = (a: SessionInfo, b: SessionInfo) => number;

/** `agent-2` before `agent-10`, as people count. */
const collator = new Intl.Collator(undefined, { numeric: true });

const byText =
  (read: (session: SessionInfo) => string): Compare =>
  (a, b) =>
    collator.compare(read(a), read(b));
const byNumber =
  (read: (session: SessionInfo) => number | null): Compare =>
  (a, b) =>
    (read(a) ?? Number.NEGATIVE_INFINITY) - (read(b) ?? Number.NEGATIVE_INFINITY);

const stable: Compare = (a, b) =>
  collator.compare(shellOwnerLabel(a), shellOwnerLabel(b)) ||
  a.dialect.localeCompare(b.dialect) ||
  a.id.localeCompare(b.id);

function comparer(key: SortKey, needsHuman: NeedsHumanTest, now: number): Compare {
  switch (key) {
    case 'attention':
    case 'state':
      return (a, b) =>
        ATTENTION_RANK[countKey(a, needsHuman)] - ATTENTION_RANK[countKey(b, needsHuman)];
    case 'owner':
      return byText(shellOwnerLabel);
    case 'dialect':
      return byText((s) => s.dialect);
    case 'command':
      return byText((s) => s.command ?? '');
    case 'elapsed':
      return byNumber((s) =>
        s.since === null || s.command === null ? null : now - Date.parse(s.since),
      );
    case 'exit':
      return byNumber((s) => s.lastExitCode);
    case 'controller':
      return byText((s) => s.controller ?? '');
    case 'viewers':
      return byNumber((s) => s.viewers);
    case 'host':
      return byText(shellHostLabel);
  }
}

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
  const compare = comparer(view.sort, needsHuman, now);
  const sign = view.direction === 'descending' ? -1 : 1;
  const shown = [...sessions]
    .filter(
      (session) =>
        (view.onlyState === null || countKey(session, needsHuman) === view.onlyState) &&
        matchesFilter(session, view.filter, needsHuman(session)),
    )
    .sort((a, b) => sign * compare(a, b) || stable(a, b));
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
