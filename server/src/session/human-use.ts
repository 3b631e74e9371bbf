/**
 * What a human did in a shell while holding its controls, kept so the agent's next result
 * can say so in brief (TOOL-CONTRACT.md, "Human control"). Keystrokes are folded into the
 * lines they make: Enter ends a line, Backspace and Ctrl-U edit it, escape sequences (arrow
 * keys, function keys) are dropped, lone control keys are named (`^C`).
 */

const ESC = '\x1b';
const ENTER = new Set(['\r', '\n']);
const ERASE = new Set(['\x7f', '\b']);
const KILL_LINE = '\x15';
/** Line-editor keys that move the cursor or recall history (Ctrl-A, B, E, F, N, P, R). */
const EDITING_KEYS = new Set(['\x01', '\x02', '\x05', '\x06', '\x0e', '\x10', '\x12']);
const KILL_WORD = '\x17';
/** Control keys that act on their own (signals, end of input) and are named in the summary. */
const NAMED_KEYS: Readonly<Record<string, string>> = {
  '\x03': '^C',
  '\x04': '^D',
  '\x1a': '^Z',
  '\x1c': '^\\',
};
/** Enough for any summary: the result line is cut to 500 characters anyway. */
const MAX_ENTRIES = 64;
/** What the summary says for a line typed with the echo off: that it was, never what. */
export const HIDDEN_ANSWER = 'a hidden answer was typed';
const MAX_LINE_CHARS = 1000;

export class HumanUse {
  private entries: string[] = [];
  private line = '';
  /** Keys that move or recall (arrows, history) were used on this line: its text is partial. */
  private edited = false;
  /** Inside an escape sequence: 'esc' after ESC, 'csi' after ESC [, 'osc' after ESC ]. */
  private escape: 'esc' | 'csi' | 'osc' | null = null;
  /** Hidden keys were typed on this line (not kept; only that they were). */
  private hidden = false;

  /**
   * Keystrokes the human sent to the terminal. `hidden` keys (a password read with the echo
   * off) are never kept: the line they make is summarised as a hidden answer.
   */
  typed(data: string, hidden = false): void {
    for (const char of data) {
      if (hidden) this.hiddenKey(char);
      else this.key(char);
    }
  }

  /** The human interrupted the foreground program from the page. */
  interrupted(): void {
    this.enter('interrupted the running command');
  }

  /** Whether a typed line is still unfinished (it sits in the terminal's input buffer). */
  get pendingLine(): boolean {
    return this.line !== '' || this.edited || this.hidden;
  }

  /** What was typed visibly on the line being typed (hidden keys are not in it). */
  get typedLine(): string {
    return this.line;
  }

  /** Forgets the unfinished line (the terminal's line was cleared). */
  dropPendingLine(): void {
    this.hidden = false;
    this.line = '';
    this.edited = false;
  }

  /**
   * The summary of the lines entered and keys pressed since the last take, or null when the
   * human did nothing. A line still being typed is not in it: it has not run.
   */
  take(): string | null {
    const entries = this.entries;
    this.entries = [];
    return entries.length === 0 ? null : entries.join('; ');
  }

  private hiddenKey(char: string): void {
    if (ENTER.has(char)) {
      this.hidden = false;
      this.line = '';
      this.edited = false;
      this.enter(HIDDEN_ANSWER);
    } else if (char in NAMED_KEYS) {
      this.hidden = false;
      this.line = '';
      this.enter(NAMED_KEYS[char] as string);
    } else this.hidden = true;
  }

  private key(char: string): void {
    if (this.escape !== null) {
      this.inEscape(char);
      return;
    }
    if (char === ESC) {
      this.escape = 'esc';
      this.edited = true;
    } else if (ENTER.has(char)) this.endLine();
    else if (ERASE.has(char)) this.line = [...this.line].slice(0, -1).join('');
    else if (char === KILL_LINE) this.line = '';
    else if (EDITING_KEYS.has(char)) this.edited = true;
    else if (char === KILL_WORD) this.line = this.line.replace(/\S*\s*$/, '');
    else if (char in NAMED_KEYS) {
      this.endLine();
      this.enter(NAMED_KEYS[char] as string);
    } else if (char >= ' ' || char === '\t') {
      if (this.line.length < MAX_LINE_CHARS) this.line += char;
    }
  }

  private inEscape(char: string): void {
    if (this.escape === 'esc') {
      if (char === '[') this.escape = 'csi';
      else if (char === ']') this.escape = 'osc';
      else this.escape = null; // a two-byte sequence (Alt+key) ends here
    } else if (this.escape === 'csi') {
      if (char >= '@' && char <= '~') this.escape = null;
    } else if (char === '\x07' || char === '\\') {
      this.escape = null;
    }
  }

  private endLine(): void {
    const line = this.line.trim();
    const edited = this.edited;
    this.line = '';
    this.edited = false;
    if (edited) this.enter(line === '' ? 'a command recalled from history' : `${line} (edited)`);
    else if (line !== '') this.enter(line);
  }

  private enter(entry: string): void {
    if (this.entries.length < MAX_ENTRIES) this.entries.push(entry);
  }
}
