/**
 * `/sessions/:id/calls/:callId/output`: the whole output a clipped call saved, as text, with
 * find (match count, next and previous, "No results") and a download. A file bigger than the
 * page shows is cut to its start, and the download gives the whole.
 */
import type { CallInfo } from '../../shared/src/api.ts';
import {
  downloadFullOutput,
  fetchCalls,
  fetchFullOutput,
  problemText,
  unreachable,
} from './api-client.ts';
import { appUrl } from './app-path.ts';
import { fullOutputName } from './call-timeline.ts';
import { h, replaceChildren } from './dom.ts';
import { pageFrame, showAccessProblem } from './page-frame.ts';
import { loadWhenReachable } from './reachability.ts';
import { commandPreview } from './session-labels.ts';
import { formatClock } from './time-format.ts';

/** Bytes of the file the page shows: enough for any reading, small enough for any browser. */
const MAX_SHOWN_BYTES = 8 * 1024 * 1024;
/** Matches highlighted and counted exactly; past it the count says "more than". */
const MAX_MATCHES = 10_000;

export async function showFullOutput(
  root: HTMLElement,
  sessionId: string,
  callId: string,
): Promise<void> {
  const title = h('span', { class: 'session-title' }, 'Full output');
  const frame = pageFrame(
    root,
    h('span', { class: 'crumb', 'aria-hidden': 'true' }, '/'),
    h('a', { href: appUrl(`/sessions/${encodeURIComponent(sessionId)}`) }, 'Shell'),
    h('span', { class: 'crumb', 'aria-hidden': 'true' }, '/'),
    title,
  );
  root.querySelector<HTMLElement>('[data-testid="connection"]')?.setAttribute('hidden', '');
  document.title = 'Full output · jumpseat';
  const [calls, file] = await loadWhenReachable(
    frame,
    () => Promise.all([fetchCalls(sessionId), fetchFullOutput(sessionId, callId, MAX_SHOWN_BYTES)]),
    (results) => unreachable(...results),
  );
  if (!calls.ok) {
    showAccessProblem(frame.main, calls.problem);
    return;
  }
  if (!file.ok) {
    showAccessProblem(frame.main, file.problem);
    return;
  }
  const call = calls.value.find((candidate) => candidate.id === callId);
  const { text, totalBytes } = file.value;
  const shownBytes = new TextEncoder().encode(text).length;
  const output = h('pre', { class: 'full-output', 'data-testid': 'full-output' }, text);
  const search = h('input', {
    type: 'search',
    id: 'output-find',
    class: 'find',
    placeholder: 'Find in output',
    autocomplete: 'off',
  });
  const count = h('span', {
    class: 'find-count muted',
    'data-testid': 'find-count',
    'aria-live': 'polite',
  });
  const previous = h(
    'button',
    { type: 'button', class: 'quiet', 'aria-label': 'Previous match' },
    '↑',
  );
  const next = h('button', { type: 'button', class: 'quiet', 'aria-label': 'Next match' }, '↓');
  const error = h('span', { class: 'form-error', role: 'alert' });
  const download = h(
    'button',
    { type: 'button', class: 'primary', 'data-testid': 'full-output-download' },
    'Download',
  );
  download.addEventListener('click', () => {
    error.textContent = '';
    void downloadFullOutput(sessionId, callId, call ? fullOutputName(call) : 'output.txt').then(
      (done) => {
        if (!done.ok) error.textContent = `Could not download: ${problemText(done.problem)}`;
      },
    );
  });
  const scroller = h('div', { class: 'numbered-output', 'data-testid': 'output-scroller' });
  const tools = h(
    'div',
    { class: 'list-controls output-tools', role: 'search', 'data-testid': 'output-tools' },
    h('label', { for: 'output-find' }, 'Find'),
    search,
    previous,
    next,
    count,
    h('span', { class: 'spacer' }),
    download,
    error,
  );
  replaceChildren(
    frame.main,
    h(
      'div',
      { class: 'full-output-head' },
      h('h1', { class: 'page-title' }, 'Full output'),
      call !== undefined && about(call),
      h(
        'p',
        { class: 'muted', 'data-testid': 'full-output-size' },
        shownBytes < totalBytes
          ? `Showing the first ${formatBytes(shownBytes)} of ${formatBytes(totalBytes)}; download for the whole.`
          : `${formatBytes(totalBytes)}, ${lineCount(text)} lines.`,
      ),
    ),
    tools,
    scroller,
  );
  // Numbered as `grep -n` counts (the agent is told to use it): one number per line.
  scroller.append(
    h(
      'pre',
      { class: 'line-numbers', 'aria-hidden': 'true', 'data-testid': 'line-numbers' },
      lineNumbers(lineCount(text)),
    ),
    output,
  );
  fitToWindow(scroller);

  const finder = new OutputFinder(output, scroller, text);
  const update = (): void => {
    const { index, total, capped } = finder.state;
    count.textContent =
      search.value === ''
        ? ''
        : total === 0
          ? 'No results'
          : `${index + 1} of ${total}${capped ? '+' : ''}`;
    count.dataset.count = String(total);
  };
  search.addEventListener('input', () => {
    finder.find(search.value);
    update();
  });
  search.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    finder.step(event.shiftKey ? -1 : 1);
    update();
  });
  previous.addEventListener('click', () => {
    finder.step(-1);
    update();
  });
  next.addEventListener('click', () => {
    finder.step(1);
    update();
  });
}

function about(call: CallInfo): HTMLElement {
  return h(
    'p',
    { class: 'full-output-call' },
    h('code', { class: 'call-command' }, commandPreview(call.command)),
    h('span', { class: 'muted' }, ` · ${formatClock(call.startedAt)}`),
  );
}

/**
 * Find in one big text node without rebuilding it: matches are ranges painted with the CSS
 * Custom Highlight API (where the browser has it), the current one scrolled into view.
 */
class OutputFinder {
  private readonly node: Text | null;
  private readonly lower: string;
  private matches: number[] = [];
  private length = 0;
  private current = -1;
  private capped = false;

  constructor(
    private readonly element: HTMLElement,
    /** The box the output scrolls in (up and down; the output itself scrolls sideways). */
    private readonly scroller: HTMLElement,
    text: string,
  ) {
    this.node = element.firstChild instanceof Text ? element.firstChild : null;
    this.lower = text.toLowerCase();
  }

  get state(): { index: number; total: number; capped: boolean } {
    return { index: this.current, total: this.matches.length, capped: this.capped };
  }

  find(term: string): void {
    const needle = term.toLowerCase();
    this.matches = [];
    this.capped = false;
    this.length = needle.length;
    if (needle !== '') {
      for (
        let at = this.lower.indexOf(needle);
        at !== -1;
        at = this.lower.indexOf(needle, at + needle.length)
      ) {
        if (this.matches.length === MAX_MATCHES) {
          this.capped = true;
          break;
        }
        this.matches.push(at);
      }
    }
    this.current = this.matches.length === 0 ? -1 : 0;
    this.paint();
  }

  step(by: 1 | -1): void {
    if (this.matches.length === 0) return;
    this.current = (this.current + by + this.matches.length) % this.matches.length;
    this.paint();
  }

  private range(at: number): Range | null {
    if (this.node === null) return null;
    const range = document.createRange();
    range.setStart(this.node, at);
    range.setEnd(this.node, at + this.length);
    return range;
  }

  private paint(): void {
    const highlights = typeof CSS !== 'undefined' && 'highlights' in CSS ? CSS.highlights : null;
    const active = this.current < 0 ? null : this.range(this.matches[this.current] ?? 0);
    if (highlights !== null) {
      highlights.delete('output-match');
      highlights.delete('output-active');
      const all = this.matches.map((at) => this.range(at)).filter((r): r is Range => r !== null);
      if (all.length > 0) highlights.set('output-match', new Highlight(...all));
      if (active !== null) highlights.set('output-active', new Highlight(active));
    }
    if (active === null) return;
    const box = active.getBoundingClientRect();
    const frame = this.element.getBoundingClientRect();
    const view = this.scroller.getBoundingClientRect();
    this.scroller.scrollTop += box.top - view.top - view.height / 3;
    this.element.scrollLeft += box.left - frame.left - frame.width / 3;
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** `1\n2\n…\nN`: the gutter beside the output, one text node however long. */
function lineNumbers(count: number): string {
  return Array.from({ length: count }, (_, index) => String(index + 1)).join('\n');
}

/** Below this the box keeps its CSS minimum and the page scrolls instead. */
const BOTTOM_MARGIN_PX = 16;

/**
 * The output's box takes the window's height below the find bar, so the bar and its count
 * stay in view however far the output is scrolled.
 */
function fitToWindow(box: HTMLElement): void {
  const resize = (): void => {
    const top = box.getBoundingClientRect().top + window.scrollY;
    box.style.maxHeight = `${Math.max(0, window.innerHeight - top - BOTTOM_MARGIN_PX)}px`;
  };
  resize();
  window.addEventListener('resize', resize);
}

function lineCount(text: string): number {
  if (text === '') return 0;
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
  return text.endsWith('\n') ? lines - 1 : lines;
}
