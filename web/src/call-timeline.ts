/**
 * The story of one shell, newest first: its calls (command, duration, exit code, outcome,
 * and — behind a disclosure — the exact text the agent received, with its full output when
 * it was clipped) and its control events (take, release, interrupt, hand-off) as they
 * happen. The running call sits at the top with its elapsed time and the tail of its output.
 */
import type { CallInfo, ControlEvent } from '../../shared/src/api.ts';
import { downloadFullOutput } from './api-client.ts';
import { appUrl } from './app-path.ts';
import { h, replaceChildren } from './dom.ts';
import { commandPreview, controlWords, OUTCOME_LABELS } from './session-labels.ts';
import { formatClock, formatDuration, formatElapsed } from './time-format.ts';

/** Entries kept on the page; the server keeps its own bounded history. */
const MAX_ENTRIES_SHOWN = 500;

/** The saved-output line the engine appends to a clipped result (TOOL-CONTRACT.md). */
const SAVED_OUTPUT_LINE = /^\[full output saved to .+\]$/m;

type Entry =
  | { readonly kind: 'call'; readonly at: string; readonly call: CallInfo }
  | { readonly kind: 'control'; readonly at: string; readonly event: ControlEvent };

export class CallTimeline {
  readonly element: HTMLElement;
  private readonly list = h('ol', { class: 'calls', 'data-testid': 'calls' });
  private readonly tail = h('pre', { class: 'call-tail', 'data-testid': 'call-tail' });
  private readonly runningCommand = h('code', { class: 'call-command' });
  private readonly runningClock = h('span', { class: 'muted running-clock' });
  private readonly running = h(
    'div',
    { class: 'call-running', 'data-testid': 'call-running', hidden: true },
    h(
      'div',
      { class: 'call-running-head' },
      h('span', { class: 'spinner', 'aria-hidden': 'true' }),
      h('span', { class: 'running-label' }, 'Running'),
      this.runningClock,
    ),
    this.runningCommand,
    this.tail,
  );
  private readonly empty = h('p', { class: 'muted' }, 'No calls yet.');
  private readonly calls = new Map<string, CallInfo>();
  private readonly events = new Map<string, ControlEvent>();
  private runningSince: string | null = null;

  constructor() {
    this.element = h(
      'section',
      { class: 'timeline', 'aria-labelledby': 'timeline-title' },
      h('h2', { id: 'timeline-title' }, 'Timeline'),
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

  /** The shell's control events as the server lists them (each kept once). */
  mergeEvents(events: readonly ControlEvent[]): void {
    for (const event of events)
      this.events.set(`${event.at}\u0000${event.kind}\u0000${event.name}`, event);
    this.render();
  }

  add(call: CallInfo): void {
    this.calls.set(call.id, call);
    this.idle();
    this.render();
  }

  /** A call runs since `startedAt` (its tail comes with `setTail`). */
  started(command: string, startedAt: string): void {
    const isNew = this.runningSince !== startedAt;
    this.runningSince = startedAt;
    this.running.hidden = false;
    this.runningCommand.textContent = commandPreview(command);
    this.runningCommand.title = command;
    this.runningClock.dataset.since = startedAt;
    this.runningClock.textContent = formatElapsed(startedAt, Date.now());
    if (isNew) this.tail.textContent = '';
    this.tail.hidden = this.tail.textContent === '';
    this.empty.hidden = true;
  }

  /** The last lines the running call printed. */
  setTail(text: string): void {
    if (this.running.hidden || this.tail.textContent === text) return;
    this.tail.textContent = text;
    this.tail.hidden = text === '';
  }

  get isRunning(): boolean {
    return !this.running.hidden;
  }

  /** The shell is not running an agent call (state changed away from running). */
  idle(): void {
    this.running.hidden = true;
    this.runningSince = null;
    delete this.runningClock.dataset.since;
    this.empty.hidden = this.calls.size + this.events.size > 0;
  }

  private render(): void {
    const entries: Entry[] = [
      ...[...this.calls.values()].map((call) => ({
        kind: 'call' as const,
        at: call.startedAt,
        call,
      })),
      ...[...this.events.values()].map((event) => ({
        kind: 'control' as const,
        at: event.at,
        event,
      })),
    ];
    entries.sort((a, b) => b.at.localeCompare(a.at) || entryId(b).localeCompare(entryId(a)));
    const shown = entries.slice(0, MAX_ENTRIES_SHOWN);
    const open = new Set(
      [...this.list.querySelectorAll<HTMLElement>('li[data-call-id]')]
        .filter((item) => item.querySelector('details')?.open === true)
        .map((item) => item.dataset.callId),
    );
    replaceChildren(
      this.list,
      ...shown.map((entry) =>
        entry.kind === 'call'
          ? callItem(entry.call, open.has(entry.call.id))
          : eventItem(entry.event),
      ),
    );
    this.empty.hidden = shown.length > 0 || !this.running.hidden;
  }
}

function entryId(entry: Entry): string {
  return entry.kind === 'call' ? entry.call.id : `${entry.event.kind}${entry.event.name}`;
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

function eventItem(event: ControlEvent): HTMLElement {
  return h(
    'li',
    {
      class: `control-event control-${event.kind}`,
      'data-testid': 'control-event',
      'data-kind': event.kind,
      'data-name': event.name,
    },
    h('span', { class: 'control-words' }, controlWords(event)),
    h('time', { class: 'muted', datetime: event.at }, formatClock(event.at)),
  );
}

/** A call that did not end well: not completed, or a non-zero exit code. */
export function callFailed(call: CallInfo): boolean {
  return call.outcome !== 'completed' || (call.exitCode !== null && call.exitCode !== 0);
}

/** The result names a saved file with the whole output (the call was clipped). */
export function hasFullOutput(call: CallInfo): boolean {
  return SAVED_OUTPUT_LINE.test(call.output);
}

/** The file name a download of the call's full output is saved as. */
export function fullOutputName(call: CallInfo): string {
  const stamp = call.startedAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `jumpseat-output-${stamp}-${call.id.slice(0, 8)}.txt`;
}

/** The web app's page for a clipped call's whole output. */
export function fullOutputPage(call: CallInfo): string {
  return appUrl(
    `/sessions/${encodeURIComponent(call.sessionId)}/calls/${encodeURIComponent(call.id)}/output`,
  );
}

/**
 * One call as the live page and the replay show it: the command and how it ended, opening to
 * the whole command and the exact result the agent received (and its full output, if clipped).
 */
export function callDetails(call: CallInfo, open: boolean): HTMLElement {
  const preview = commandPreview(call.command);
  const clipped = hasFullOutput(call);
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
        clipped && h('span', { class: 'clipped' }, 'clipped'),
        h('span', {}, formatDuration(call.durationMs)),
        h('time', { datetime: call.startedAt }, formatClock(call.startedAt)),
      ),
    ),
    // The whole command, when the summary could only show part of it.
    preview !== call.command &&
      h('pre', { class: 'call-full-command', 'aria-label': 'Command' }, call.command),
    h('div', { class: 'result-label' }, 'What the agent received'),
    h('pre', { class: 'result', 'data-testid': 'call-result' }, call.output),
    clipped &&
      h(
        'p',
        { class: 'full-output-links' },
        h(
          'a',
          { href: fullOutputPage(call), 'data-testid': 'full-output-link' },
          'Open the full output',
        ),
        ' · ',
        h(
          'button',
          {
            type: 'button',
            class: 'link-button',
            'data-testid': 'full-output-download',
            onclick: () => void downloadFullOutput(call.sessionId, call.id, fullOutputName(call)),
          },
          'Download',
        ),
      ),
  );
}
