/**
 * The replay page's timeline: the shell's calls and control events in the order they happened,
 * each with a button that jumps the player there; a call opens to the exact text the agent got
 * and names who held the controls while it ran.
 */
import type { CallInfo, ControlEvent } from '../../shared/src/api.ts';
import { callDetails, callFailed } from './call-timeline.ts';
import { h } from './dom.ts';
import { commandPreview, controlWords } from './session-labels.ts';
import { formatClock } from './time-format.ts';

interface Entry {
  readonly at: number;
  readonly wall: string;
  readonly element: HTMLElement;
}

/** `1:05.3` (or `1:02:05.3`) on the playback clock: calls often start within a second. */
export function formatPlayback(ms: number): string {
  const tenths = Math.floor(Math.max(0, ms) / 100);
  const total = Math.floor(tenths / 10);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = `${String(total % 60).padStart(2, '0')}.${tenths % 10}`;
  return hours > 0
    ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`
    : `${minutes}:${seconds}`;
}

export function replayTimeline(
  calls: readonly CallInfo[],
  callStarts: readonly number[],
  events: readonly ControlEvent[],
  eventTime: (event: ControlEvent) => number,
  jump: (ms: number) => void,
): HTMLElement {
  const entries: Entry[] = [
    ...calls.map((call, index) => {
      const at = callStarts[index] ?? 0;
      return { at, wall: call.startedAt, element: callEntry(call, index, at, jump) };
    }),
    ...events.map((event) => {
      const at = eventTime(event);
      return { at, wall: event.at, element: controlEntry(event, at, jump) };
    }),
  ];
  entries.sort((a, b) => a.at - b.at || a.wall.localeCompare(b.wall));
  return h(
    'section',
    { class: 'timeline replay-timeline', 'aria-labelledby': 'replay-timeline-title' },
    h('h2', { id: 'replay-timeline-title' }, 'Timeline'),
    entries.length === 0 && h('p', { class: 'muted' }, 'No calls and nobody took the controls.'),
    h('ol', { class: 'calls' }, ...entries.map((entry) => entry.element)),
  );
}

function jumpButton(at: number, label: string, jump: (ms: number) => void): HTMLElement {
  return h(
    'button',
    {
      type: 'button',
      class: 'jump',
      'data-testid': 'replay-jump',
      'aria-label': `Play from ${formatPlayback(at)}: ${label}`,
      onclick: () => jump(at),
    },
    `▶ ${formatPlayback(at)}`,
  );
}

function callEntry(
  call: CallInfo,
  index: number,
  at: number,
  jump: (ms: number) => void,
): HTMLElement {
  return h(
    'li',
    {
      class: callFailed(call) ? 'call failed' : 'call',
      'data-testid': 'replay-call',
      'data-index': index,
      'data-at': Math.round(at),
      'data-outcome': call.outcome,
      'data-exit-code': call.exitCode === null ? '' : String(call.exitCode),
      'data-controller': call.controller ?? '',
    },
    jumpButton(at, commandPreview(call.command), jump),
    callDetails(call, false),
  );
}

function controlEntry(event: ControlEvent, at: number, jump: (ms: number) => void): HTMLElement {
  const words = controlWords(event);
  return h(
    'li',
    {
      class: 'control-event',
      'data-testid': 'replay-control-event',
      'data-kind': event.kind,
      'data-name': event.name,
    },
    jumpButton(at, words, jump),
    h(
      'span',
      { class: 'control-words' },
      words,
      event.kind === 'take' &&
        event.keysRecorded &&
        h('span', { class: 'muted' }, ' (keystrokes recorded)'),
    ),
    h('time', { class: 'muted', datetime: event.at }, formatClock(event.at)),
  );
}
