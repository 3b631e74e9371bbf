/**
 * A test's copy of one shell's screen: a headless xterm fed the live stream (the join
 * snapshot, then every output chunk in order, resizes), read as text the way the web app's
 * `window.jumpseat.terminalText()` reads its terminal.
 */
import headless from '@xterm/headless';
import type { LiveEvent } from '../../client/src/index.ts';
import { TerminalBounds } from '../../shared/src/terminal-bounds.ts';
import { guardTerminal } from '../../shared/src/xterm-guard.ts';

const { Terminal } = headless;

/** Until the first snapshot says the shell's size. */
const FIRST_COLS = 80;
const FIRST_ROWS = 24;
/** Lines kept above the screen (the matchers read only the screen). */
const SCROLLBACK_LINES = 1000;

export class ScreenMirror {
  private readonly terminal = new Terminal({
    cols: FIRST_COLS,
    rows: FIRST_ROWS,
    scrollback: SCROLLBACK_LINES,
    allowProposedApi: true,
  });
  private snapshotSeen = false;
  private readonly waiters: (() => void)[] = [];
  /**
   * As jumpseat's own screens do (shared/src): a shell's repeat counts bounded and xterm.js's
   * defects guarded, so no agent's output can hang or crash the test run watching it.
   */
  private readonly bounds = new TerminalBounds(() => this.terminal);

  constructor() {
    guardTerminal(this.terminal, () => {});
  }

  /** Feeds one live event; output before the first snapshot is part of it and skipped. */
  apply(event: LiveEvent): void {
    if (event.type === 'snapshot') {
      this.terminal.reset();
      this.bounds.reset();
      this.terminal.resize(event.cols, event.rows);
      this.terminal.write(event.data);
      this.snapshotSeen = true;
      for (const wake of this.waiters.splice(0)) wake();
    } else if (event.type === 'output' && this.snapshotSeen) {
      this.terminal.write(this.bounds.push(event.data));
    } else if (event.type === 'resize') {
      this.terminal.resize(event.cols, event.rows);
    }
  }

  /** The connection closed for good: nothing more will come (the screen stays as it is). */
  close(): void {
    this.snapshotSeen = true;
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once the screen has been received (the join snapshot), or nothing more comes. */
  ready(): Promise<void> {
    if (this.snapshotSeen) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Whether arrow keys go as application cursor keys (`less`, `vim`, … ask for that). */
  get applicationCursorKeys(): boolean {
    return this.terminal.modes.applicationCursorKeysMode;
  }

  /** The screen's rows (a wrapped line joined), trailing blanks trimmed, after every write. */
  async text(): Promise<string> {
    await new Promise<void>((resolve) => this.terminal.write('', resolve));
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let y = buffer.baseY; y < buffer.baseY + this.terminal.rows; y++) {
      const line = buffer.getLine(y);
      if (line === undefined) break;
      const text = line.translateToString(true);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    const trimmed = lines.map((line) => line.trimEnd());
    while (trimmed.length > 0 && trimmed.at(-1) === '') trimmed.pop();
    return trimmed.join('\n');
  }

  dispose(): void {
    this.terminal.dispose();
  }
}
