/**
 * The live terminal: xterm.js with its addons (WebGL renderer with a DOM fallback, Unicode 11
 * widths, clickable links, search, fit), fed through one ordered queue so a snapshot that
 * replaces the screen can never be overtaken by output written before it.
 */
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { WebglAddon } from '@xterm/addon-webgl';
import { type IMarker, type ITheme, Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { TerminalBounds } from '../../shared/src/terminal-bounds.ts';
import { guardTerminal } from '../../shared/src/xterm-guard.ts';

/** Lines a viewer can scroll back; the server's snapshot carries 2,000 of its own. */
const SCROLLBACK_LINES = 10_000;
/**
 * Font sizes the terminal is scaled between to fit its box (px). Below the minimum it stays
 * readable and scrolls sideways (a 120-column shell on a phone); the zoom goes further.
 */
const MIN_FONT_PX = 10;
const MAX_FONT_PX = 15;
/** The zoom control's range and step (px). */
export const MIN_ZOOM_FONT_PX = 5;
export const MAX_ZOOM_FONT_PX = 24;
const ZOOM_STEP_PX = 1;
/** Highlights of find's matches (they also make the search addon count them). */
const FIND_DECORATIONS = {
  matchBackground: '#6b5a00',
  matchBorder: '#e3b341',
  matchOverviewRuler: '#e3b341',
  activeMatchBackground: '#b45309',
  activeMatchBorder: '#fbbf24',
  activeMatchColorOverviewRuler: '#fbbf24',
} as const;
/** The font a controller types at when the shell is fitted to the window (px). */
const FIT_FONT_PX = 13;
/** Room left for the vertical scrollbar xterm draws inside its box. */
const SCROLLBAR_ALLOWANCE_PX = 16;
const FONT_FAMILY =
  'ui-monospace, "JetBrains Mono", "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace';

const DARK: ITheme = {
  background: '#0b0f14',
  foreground: '#d6dde6',
  cursor: '#34d399',
  selectionBackground: '#2c4a6b',
};
const LIGHT: ITheme = {
  background: '#fbfcfd',
  foreground: '#1d2530',
  cursor: '#047857',
  selectionBackground: '#bcd4f0',
  black: '#1d2530',
  brightBlack: '#5b6573',
  white: '#a3acb8',
  brightWhite: '#6b7480',
  yellow: '#8a6a00',
  brightYellow: '#9a7b00',
};

type Operation =
  | { readonly kind: 'output'; chunks: Uint8Array[] }
  | {
      readonly kind: 'replace';
      readonly cols: number;
      readonly rows: number;
      readonly data: string;
    }
  | { readonly kind: 'resize'; readonly cols: number; readonly rows: number };

export class TerminalView {
  readonly terminal: Terminal;
  private readonly fit = new FitAddon();
  private readonly search = new SearchAddon();
  private readonly queue: Operation[] = [];
  private writing = false;
  /**
   * A shell's repeat counts and strings bounded before xterm.js runs them (terminal-bounds.ts): the page
   * applies operations in order, so the terminal's size is the one the bytes are parsed at.
   */
  private readonly bounds = new TerminalBounds(() => this.terminal);
  /** A controller fitted the shell to the window: keep the font, do not scale. */
  private fitMode = false;
  /** While fitted: told the size that fills the box whenever the box changes size. */
  private onFit: ((size: { cols: number; rows: number }) => void) | null = null;
  /** A font size the viewer chose with the zoom control; null: scaled to the box. */
  private zoomPx: number | null = null;
  /** `box`: scaled so the whole screen fits the box's width and height (the replay). */
  private readonly scaleTo: 'width' | 'box';
  private readonly resizeObserver: ResizeObserver;
  /** xterm owns this element; the page styles the frame around it. */
  private readonly host: HTMLElement;

  constructor(frame: HTMLElement, dark: boolean, scaleTo: 'width' | 'box' = 'width') {
    this.scaleTo = scaleTo;
    this.host = frame.appendChild(document.createElement('div'));
    this.host.classList.add(`scale-${scaleTo}`);
    this.terminal = new Terminal({
      cols: 120,
      rows: 40,
      scrollback: SCROLLBACK_LINES,
      fontFamily: FONT_FAMILY,
      fontSize: 13,
      theme: dark ? DARK : LIGHT,
      allowProposedApi: true,
      disableStdin: true,
      cursorBlink: false,
      screenReaderMode: false,
    });
    // A shell's output reaches defects of xterm.js; the page recovers rather than freezes.
    guardTerminal(this.terminal, (error) =>
      console.error('jumpseat: the terminal was reset after an xterm.js defect', error),
    );
    this.terminal.loadAddon(this.fit);
    this.terminal.loadAddon(this.search);
    this.terminal.loadAddon(new Unicode11Addon());
    this.terminal.unicode.activeVersion = '11';
    this.terminal.loadAddon(
      new WebLinksAddon((_event, uri) => window.open(uri, '_blank', 'noopener,noreferrer')),
    );
    this.terminal.open(this.host);
    this.loadWebgl();
    this.resizeObserver = new ResizeObserver(() => {
      this.scaleToWidth();
      this.refit();
    });
    this.resizeObserver.observe(this.host);
    this.scaleToWidth();
  }

  /** Raw PTY bytes, in stream order. */
  write(data: Uint8Array): void {
    const last = this.queue.at(-1);
    if (last?.kind === 'output') last.chunks.push(data);
    else this.queue.push({ kind: 'output', chunks: [data] });
    this.pump();
  }

  /** A snapshot: the screen and scrollback start over from `data` at cols×rows. */
  replace(cols: number, rows: number, data: string): void {
    // Output still queued predates the snapshot, which already contains it.
    this.queue.length = 0;
    this.queue.push({ kind: 'replace', cols, rows, data });
    this.pump();
  }

  /** The shell's size changed at this point of the stream. */
  resize(cols: number, rows: number): void {
    this.queue.push({ kind: 'resize', cols, rows });
    this.pump();
  }

  setTheme(dark: boolean): void {
    this.terminal.options.theme = dark ? DARK : LIGHT;
  }

  setInputEnabled(enabled: boolean): void {
    this.terminal.options.disableStdin = !enabled;
    this.terminal.options.cursorBlink = enabled;
  }

  /**
   * For a controller who wants the shell to fill the window: the terminal box takes the
   * window's height at a comfortable fixed font, and the size that fills it is returned.
   * `fitting(false)` goes back to showing the shell's own size scaled to the page width.
   */
  fitting(
    on: boolean,
    onFit: ((size: { cols: number; rows: number }) => void) | null = null,
  ): { cols: number; rows: number } | undefined {
    if (!on && !this.fitMode) return undefined;
    this.fitMode = on;
    this.onFit = on ? onFit : null;
    this.host.classList.toggle('fitting', on);
    if (!on) {
      this.scaleToWidth();
      return undefined;
    }
    this.setFontSize(FIT_FONT_PX);
    return this.proposed();
  }

  /** Find in the buffer; every change of the matches is reported to `onFindResults`. */
  find(term: string, backwards: boolean): boolean {
    if (term === '') {
      this.search.clearDecorations();
      this.findListener?.({ index: -1, count: 0 });
      return false;
    }
    const options = { decorations: FIND_DECORATIONS };
    return backwards
      ? this.search.findPrevious(term, options)
      : this.search.findNext(term, options);
  }

  /** `index` is 0-based (−1 when none is selected); `count` 0 means no match. */
  onFindResults(listener: (results: { index: number; count: number }) => void): void {
    this.findListener = listener;
    this.search.onDidChangeResults(({ resultIndex, resultCount }) =>
      listener({ index: resultIndex, count: resultCount }),
    );
  }

  /** The zoom control: a step bigger or smaller (±1), or back to scaled to the box (0). */
  zoom(step: -1 | 0 | 1): number {
    if (step === 0) {
      this.zoomPx = null;
      this.scaleToWidth();
    } else {
      const current = this.terminal.options.fontSize ?? FIT_FONT_PX;
      this.zoomPx = Math.max(
        MIN_ZOOM_FONT_PX,
        Math.min(MAX_ZOOM_FONT_PX, Math.round(current) + step * ZOOM_STEP_PX),
      );
      if (!this.fitMode) this.setFontSize(this.zoomPx);
    }
    return this.terminal.options.fontSize ?? FIT_FONT_PX;
  }

  get fontSize(): number {
    return this.terminal.options.fontSize ?? FIT_FONT_PX;
  }

  /** Told the font size (px) whenever it changes: scaled, zoomed or fitted. */
  onFontSize(listener: (px: number) => void): void {
    this.fontListener = listener;
    listener(this.fontSize);
  }

  private fontListener: ((px: number) => void) | null = null;

  private setFontSize(px: number): void {
    if (this.terminal.options.fontSize === px) return;
    this.terminal.options.fontSize = px;
    this.fontListener?.(px);
  }

  /** Marks the line the cursor is on now, to read what was printed from there on. */
  markLine(): IMarker | undefined {
    return this.terminal.registerMarker(0);
  }

  /**
   * The last `max` non-blank lines from `mark` (or of the screen without one) to the end,
   * as the shell printed them.
   */
  tail(mark: IMarker | undefined, max: number): string {
    const buffer = this.terminal.buffer.active;
    const from =
      mark !== undefined && !mark.isDisposed && mark.line >= 0 ? mark.line : buffer.baseY;
    const lines = this.lines(from, buffer.length);
    while (lines.length > 0 && (lines.at(-1) ?? '').trim() === '') lines.pop();
    return lines.slice(-max).join('\n');
  }

  /** The terminal's screen (its last `rows` lines), trailing blanks trimmed per line. */
  screenText(): string {
    const buffer = this.terminal.buffer.active;
    return this.lines(buffer.baseY, buffer.baseY + this.terminal.rows).join('\n');
  }

  /** Scrollback and screen, trailing blanks trimmed per line. */
  bufferText(): string {
    return this.lines(0, this.terminal.buffer.active.length).join('\n');
  }

  focus(): void {
    this.terminal.focus();
  }

  dispose(): void {
    this.resizeObserver.disconnect();
    this.terminal.dispose();
  }

  private findListener: ((results: { index: number; count: number }) => void) | null = null;

  private proposed(): { cols: number; rows: number } | undefined {
    const size = this.fit.proposeDimensions();
    return size === undefined || Number.isNaN(size.cols) ? undefined : size;
  }

  /** Fitted to the window, whose size changed: the shell is resized to fill it again. */
  private refit(): void {
    if (!this.fitMode || this.onFit === null) return;
    const size = this.proposed();
    if (size === undefined) return;
    if (size.cols !== this.terminal.cols || size.rows !== this.terminal.rows) this.onFit(size);
  }

  private lines(from: number, to: number): string[] {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let y = from; y < to; y += 1) {
      const line = buffer.getLine(y);
      if (line === undefined) break;
      // A wrapped line continues the one before it: join, as the shell printed it.
      const text = line.translateToString(true);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return lines;
  }

  /** One operation at a time: xterm parses asynchronously, and order is everything here. */
  private pump(): void {
    if (this.writing) return;
    const operation = this.queue.shift();
    if (operation === undefined) return;
    this.writing = true;
    const next = (): void => {
      this.writing = false;
      this.pump();
    };
    switch (operation.kind) {
      case 'output':
        this.terminal.write(this.bounds.push(concat(operation.chunks)), next);
        break;
      case 'replace':
        this.terminal.reset();
        this.bounds.reset();
        this.applySize(operation.cols, operation.rows);
        this.terminal.write(operation.data, next);
        break;
      case 'resize':
        this.applySize(operation.cols, operation.rows);
        next();
        break;
    }
  }

  private applySize(cols: number, rows: number): void {
    if (cols !== this.terminal.cols || rows !== this.terminal.rows) {
      // Guarded (xterm-guard.ts): a defect met here resets the screen, the queue goes on.
      this.terminal.resize(cols, rows);
      this.scaleToWidth();
    }
  }

  /**
   * Agent shells have a fixed size (120×40): the font is scaled so the whole width fits the
   * page, down to a readable minimum; below that the terminal scrolls sideways (phones).
   */
  private scaleToWidth(): void {
    if (this.fitMode) return;
    if (this.zoomPx !== null) {
      this.setFontSize(this.zoomPx);
      return;
    }
    const available = this.host.clientWidth - SCROLLBAR_ALLOWANCE_PX;
    const screen = this.host.querySelector<HTMLElement>('.xterm-screen');
    if (available <= 0 || screen === null || screen.offsetWidth === 0) return;
    const current = this.terminal.options.fontSize ?? MAX_FONT_PX;
    let ideal = (current * available) / screen.offsetWidth;
    // The replay's box has a height too: the whole screen must fit it, not only its width.
    if (this.scaleTo === 'box' && this.host.clientHeight > 0 && screen.offsetHeight > 0) {
      ideal = Math.min(ideal, (current * this.host.clientHeight) / screen.offsetHeight);
    }
    // Below the readable minimum the box scrolls instead (a phone); the zoom goes smaller.
    const size = Math.max(MIN_FONT_PX, Math.min(MAX_FONT_PX, Math.floor(ideal * 4) / 4));
    if (Math.abs(size - current) >= 0.25) this.setFontSize(size);
  }

  private loadWebgl(): void {
    if (!hasHardwareWebgl()) return;
    try {
      const webgl = new WebglAddon();
      webgl.onContextLoss(() => webgl.dispose());
      this.terminal.loadAddon(webgl);
    } catch {
      // WebGL refused at the last moment: xterm's DOM renderer draws instead.
    }
  }
}

/**
 * WebGL drawn by the GPU is xterm's fastest renderer; WebGL emulated on the CPU (SwiftShader,
 * llvmpipe: headless browsers, VMs) is slower than the DOM renderer, so it is skipped.
 */
function hasHardwareWebgl(): boolean {
  const gl = document.createElement('canvas').getContext('webgl2');
  if (gl === null) return false;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = info === null ? '' : String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL));
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return !/swiftshader|llvmpipe|softpipe|software/i.test(renderer);
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const joined = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return joined;
}
