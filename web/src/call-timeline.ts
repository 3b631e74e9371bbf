/**
 * The calls of one shell, newest first: command, duration, exit code, outcome, and — behind
 * a disclosure — the exact text the agent received. A running call shows at the top.
 */
import type { CallInfo } from '../../shared/src/api.ts';
import { h, replaceChildren } from './dom.ts';
import { commandPreview, OUTCOME_LABELS } from './session-labels.ts';
import { formatClock, formatDuration, formatElapsed } from './time-format.ts';

/** Calls kept on the page; the server keeps its own bounded history. */
const MAX_CALLS_SHOWN = 500;

export class CallTimeline {
  readonly element: HTMLElement;
  private readonly list = h('ol', { class: 'calls', 'data-testid': 'calls' });
  private readonly running = h('div', {
    class: 'call-running',
    'data-testid': 'call-running',
    hidden: true,
  });
  private readonly empty = h('p', { class: 'muted' }, 'No calls yet.');
  private readonly calls = new Map<string, CallInfo>();

  constructor() {
    this.element = h(
      'section',
      { class: 'timeline', 'aria-labelledby': 'timeline-title' },
      h('h2', { id: 'timeline-title' }, 'Calls'),
      this.running,
      this.empty,
      this.list,
    );
  }

  /** Everything the server has (after a load or a reconnect); keeps calls already shown. */
  merge(calls: readonly CallInfo[]): void {
    for (const call of calls) this.calls.set(call.id, call);
    this.render();
  }

  add(call: CallInfo): void {
    this.calls.set(call.id, call);
    this.running.hidden = true;
    this.render();
  }

  started(command: string, startedAt: string): void {
    this.running.hidden = false;
    replaceChildren(
      this.running,
      h('span', { class: 'spinner', 'aria-hidden': 'true' }),
      h('code', {}, commandPreview(command)),
      h('span', { class: 'muted', 'data-since': startedAt }, formatElapsed(startedAt, Date.now())),
    );
  }

  /** The shell is not running an agent call (state changed away from running). */
  idle(): void {
    this.running.hidden = true;
  }

  private render(): void {
    const ordered = [...this.calls.values()]
      .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id))
      .slice(0, MAX_CALLS_SHOWN);
    const open = new Set(
      [...this.list.querySelectorAll<HTMLElement>('li[data-call-id]')]
        .filter((item) => item.querySelector('details')?.open === true)
        .map((item) => item.dataset.callId),
    );
    replaceChildren(this.list, ...ordered.map((call) => callItem(call, open.has(call.id))));
    this.empty.hidden = ordered.length > 0;
  }
}

function callItem(call: CallInfo, open: boolean): HTMLElement {
  return h(
    'li',
    {
      'data-testid': 'call',
      'data-call-id': call.id,
      'data-exit-code': call.exitCode === null ? '' : String(call.exitCode),
      'data-outcome': call.outcome,
      class: callFailed(call) ? 'call failed' : 'call',
    },
    callDetails(call, open),
  );
}

/** A call that did not end well: not completed, or a non-zero exit code. */
export function callFailed(call: CallInfo): boolean {
  return call.outcome !== 'completed' || (call.exitCode !== null && call.exitCode !== 0);
}

/**
 * One call as the live page and the replay show it: the command and how it ended, opening to
 * the whole command and the exact result the agent received.
 */
export function callDetails(call: CallInfo, open: boolean): HTMLElement {
  const preview = commandPreview(call.command);
  return h(
    'details',
    { open },
    h(
      'summary',
      {},
      h('code', { class: 'call-command' }, preview),
      h(
        'span',
        { class: 'call-meta' },
        h('span', { class: `outcome outcome-${call.outcome}` }, OUTCOME_LABELS[call.outcome]),
        call.exitCode !== null && h('span', { class: 'exit' }, `exit ${call.exitCode}`),
        call.controller && h('span', { class: 'controller' }, `${call.controller} at the controls`),
        h('span', {}, formatDuration(call.durationMs)),
        h('time', { datetime: call.startedAt }, formatClock(call.startedAt)),
      ),
    ),
    // The whole command, when the summary could only show part of it.
    preview !== call.command &&
      h('pre', { class: 'call-full-command', 'aria-label': 'Command' }, call.command),
    h('div', { class: 'result-label' }, 'What the agent received'),
    h('pre', { class: 'result', 'data-testid': 'call-result' }, call.output),
  );
}
