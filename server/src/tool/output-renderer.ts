/**
 * Turns the raw bytes a command wrote to its terminal into the text a model reads, as a
 * terminal would show it: decoded, control sequences removed, carriage-return redraws
 * resolved per line. This module is the escape-sequence parser; the current line lives in
 * TerminalLine, and ClipBuffer keeps the head (and tail) in memory and spills the whole.
 */
import {
  ClipBuffer,
  type OutputClipMode,
  type RenderedOutput,
  type SpillTarget,
} from './clip-buffer.ts';
import { plainLines } from './plain-lines.ts';
import { TerminalLine } from './terminal-line.ts';

export {
  cutAtCodePoint,
  type OutputClipMode,
  type RenderedOutput,
  type SpillTarget,
  type SpillWriter,
} from './clip-buffer.ts';
export { LONG_LINE_COMMIT_CHARS } from './terminal-line.ts';

export interface OutputRendererOptions {
  maxOutputChars: number;
  spill: SpillTarget | null;
  lostPrefix?: boolean;
  /** How a long output is clipped (TOOL-CONTRACT.md, `clip`); defaults to `head`. */
  clip?: OutputClipMode;
}

/** Largest CSI numeric parameter honoured; real terminals clamp to their width anyway. */
const MAX_CSI_PARAM = 4096;
/** CSI parameter characters kept; longer ones are not meaningful to us. */
const MAX_CSI_PARAM_CHARS = 64;

/** Parser states; a plain object rather than an enum so the file is erasable TypeScript. */
const State = {
  Ground: 0,
  Escape: 1,
  EscapeIntermediate: 2,
  Csi: 3,
  Osc: 4,
  /** DCS, SOS, PM, APC: only ST ends them. */
  ControlString: 5,
  /** ESC seen inside OSC or a control string: ST if `\` follows. */
  StringEscape: 6,
} as const;
type State = (typeof State)[keyof typeof State];

/** In Ground, what is not plain text: C0 except TAB/LF, a CR not followed by LF, DEL, C1.
 *  Everything between matches is printed in bulk. */
const SPECIAL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/g;
/** In OSC and control strings: BEL, CAN, SUB, ESC, ST. */
const STRING_END = /[\x07\x18\x1a\x1b\x9c]/g;
const ALT_SCREEN_MODES = new Set(['1049', '1047', '47']);
const DECODE_STREAM = { stream: true } as const;

/** The first numeric CSI parameter, 0 when absent, clamped to MAX_CSI_PARAM. */
function firstParam(params: string): number {
  return Math.min(Number.parseInt(params, 10) || 0, MAX_CSI_PARAM);
}

export class OutputRenderer {
  private readonly options: OutputRendererOptions;
  private readonly clip: ClipBuffer;
  private readonly line: TerminalLine;
  private readonly decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  /** The decoder holds no part of a character: the last byte it was given was ASCII. */
  private decoderIdle = true;
  private lostPrefix: boolean;
  private state: State = State.Ground;
  private csiParams = '';
  private csiIntermediate = false;
  private alt = false;
  private result: Promise<RenderedOutput> | null = null;

  constructor(options: OutputRendererOptions) {
    if (!Number.isInteger(options.maxOutputChars) || options.maxOutputChars < 0) {
      throw new RangeError('maxOutputChars must be a non-negative integer');
    }
    this.options = options;
    const clip = new ClipBuffer({
      maxOutputChars: options.maxOutputChars,
      clip: options.clip ?? 'head',
      spill: options.spill,
    });
    this.clip = clip;
    this.line = new TerminalLine((text) => clip.append(text));
    this.lostPrefix = options.lostPrefix ?? false;
  }

  /** True while a full-screen program has the alternate screen; its text is not output. */
  get altScreen(): boolean {
    return this.alt;
  }

  markLostPrefix(): void {
    this.lostPrefix = true;
  }

  /** Feeds raw PTY bytes; chunks may split UTF-8 and escape sequences anywhere. */
  push(chunk: Uint8Array): void {
    this.assertOpen();
    let rest = chunk;
    if (this.state === State.Ground && !this.alt && this.decoderIdle) {
      // Plain lines print as they are (printRun's own input, its CRs already gone); the
      // general path takes only what follows them.
      const plain = plainLines(chunk);
      if (plain.text.length > 0) this.printRun(plain.text, 0, plain.text.length);
      rest = chunk.subarray(plain.end);
    }
    if (rest.length === 0) return;
    const text = this.decoder.decode(rest, DECODE_STREAM);
    this.decoderIdle = (rest[rest.length - 1] as number) < 0x80;
    if (text.length > 0) this.feed(text);
  }

  /**
   * Ends the stream; later calls return the same result. With `screen` (a full-screen
   * program's screen text) the output is that text, clipped by the same rules, and what the
   * stream carried is dropped, spill file included.
   */
  finish(screen?: string): Promise<RenderedOutput> {
    this.result ??= screen === undefined ? this.complete() : this.completeWithScreen(screen);
    return this.result;
  }

  /** UTF-16 units of output held in memory (head, tail, current line): for tests that
   *  check memory stays bounded however long the output runs. */
  retainedChars(): number {
    return this.clip.retainedChars + this.line.length;
  }

  private assertOpen(): void {
    if (this.result !== null) throw new Error('OutputRenderer: data pushed after finish()');
  }

  private async completeWithScreen(screen: string): Promise<RenderedOutput> {
    await this.clip.discard();
    const clip = new ClipBuffer({
      maxOutputChars: this.options.maxOutputChars,
      clip: this.options.clip ?? 'head',
      spill: null,
    });
    clip.append(screen);
    return clip.finish(this.lostPrefix);
  }

  private async complete(): Promise<RenderedOutput> {
    const rest = this.decoder.decode();
    if (rest.length > 0) this.feed(rest);
    this.line.flush();
    return this.clip.finish(this.lostPrefix);
  }

  private feed(s: string): void {
    let i = 0;
    while (i < s.length) {
      if (this.state === State.Ground) {
        SPECIAL.lastIndex = i;
        const match = SPECIAL.exec(s);
        const end = match === null ? s.length : match.index;
        if (end > i) this.printRun(s, i, end);
        if (match === null) return;
        i = this.groundControl(s.charCodeAt(end), end);
      } else if (this.state === State.Osc || this.state === State.ControlString) {
        STRING_END.lastIndex = i;
        const match = STRING_END.exec(s);
        if (match === null) return;
        i = match.index + 1;
        const c = s.charCodeAt(match.index);
        if (c === 0x1b) this.state = State.StringEscape;
        else if (c !== 0x07 || this.state === State.Osc) this.state = State.Ground;
      } else {
        if (this.state === State.Csi) i = this.csiParameters(s, i);
        if (i < s.length) i = this.sequenceChar(s.charCodeAt(i), i);
      }
    }
  }

  /** Handles one SPECIAL character in Ground; returns the next index. */
  private groundControl(c: number, i: number): number {
    if (c === 0x1b) this.state = State.Escape;
    else if (c === 0x9b) this.startCsi();
    // The 8-bit string introducers, as the screens (xterm.js) take them: OSC; DCS, SOS, PM, APC.
    else if (c === 0x9d) this.state = State.Osc;
    else if (c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) this.state = State.ControlString;
    else this.execute(c);
    return i + 1;
  }

  /** C0 controls act even inside escape sequences, as in a real terminal. */
  private execute(c: number): void {
    if (this.alt) return;
    if (c === 0x0d) this.line.carriageReturn();
    else if (c === 0x0a) this.line.newline();
    else if (c === 0x08) this.line.cursorBack(1);
    else if (c === 0x09) this.line.print('\t');
  }

  /** One character of ESC, ESC-intermediate, CSI or string-escape; returns the next index. */
  private sequenceChar(c: number, i: number): number {
    if (c === 0x18 || c === 0x1a) {
      this.state = State.Ground;
      return i + 1;
    }
    if (c === 0x1b) {
      this.state = State.Escape;
      return i + 1;
    }
    if (c < 0x20 || c === 0x7f) {
      this.execute(c);
      return i + 1;
    }
    if (c > 0x7f) {
      this.state = State.Ground; // not part of any sequence: abandon it and print c
      return i;
    }
    switch (this.state) {
      case State.Escape:
        if (c === 0x5b) this.startCsi();
        else if (c === 0x5d) this.state = State.Osc;
        else if (c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) {
          this.state = State.ControlString;
        } else if (c < 0x30) this.state = State.EscapeIntermediate;
        else {
          if (c === 0x63) this.alt = false; // ESC c, full reset, also leaves the alternate screen
          this.state = State.Ground;
        }
        return i + 1;
      case State.EscapeIntermediate:
        if (c >= 0x30) this.state = State.Ground;
        return i + 1;
      case State.StringEscape:
        if (c === 0x5c) {
          this.state = State.Ground;
          return i + 1;
        }
        this.state = State.Escape; // the string was cut short by a new escape sequence
        return i;
      default:
        if (c >= 0x40) {
          this.state = State.Ground;
          this.dispatchCsi(c);
        } else if (c < 0x30) this.csiIntermediate = true;
        else if (this.csiParams.length < MAX_CSI_PARAM_CHARS) {
          this.csiParams += String.fromCharCode(c);
        }
        return i + 1;
    }
  }

  /** Takes the run of CSI parameter characters at s[i] in one slice; returns its end. */
  private csiParameters(s: string, i: number): number {
    let end = i;
    while (end < s.length) {
      const c = s.charCodeAt(end);
      if (c < 0x30 || c > 0x3f) break;
      end++;
    }
    if (end > i && this.csiParams.length < MAX_CSI_PARAM_CHARS) {
      this.csiParams += s.slice(i, Math.min(end, i + MAX_CSI_PARAM_CHARS));
    }
    return end;
  }

  private startCsi(): void {
    this.state = State.Csi;
    this.csiParams = '';
    this.csiIntermediate = false;
  }

  private dispatchCsi(final: number): void {
    if (this.csiIntermediate) return;
    const params = this.csiParams;
    const marker = params.charCodeAt(0); // NaN when there are no parameters
    if (final === 0x68 || final === 0x6c) {
      // h / l: only the alternate-screen private modes matter here.
      if (
        marker === 0x3f &&
        params
          .slice(1)
          .split(';')
          .some((m) => ALT_SCREEN_MODES.has(m))
      ) {
        this.alt = final === 0x68;
      }
      return;
    }
    if (this.alt || marker >= 0x3c) return; // private sequences (< = > ?) move no cursor
    switch (final) {
      case 0x4b: // K: erase in line
        this.line.eraseInLine(firstParam(params));
        break;
      case 0x47: // G: cursor to column
      case 0x60: // `: the same, as HPA
        this.line.cursorToColumn(Math.max(firstParam(params), 1) - 1);
        break;
      case 0x43: // C: cursor forward
      case 0x61: // a: the same, as HPR
        this.line.cursorForward(Math.max(firstParam(params), 1));
        break;
      case 0x44: // D: cursor back
        this.line.cursorBack(Math.max(firstParam(params), 1));
        break;
      case 0x58: // X: erase characters
        this.line.eraseChars(Math.max(firstParam(params), 1));
        break;
    }
  }

  /** Prints s[start, end), which holds only text, TAB, LF and CR LF: the fast path. */
  private printRun(s: string, start: number, end: number): void {
    if (this.alt) return;
    // Sliced first so every search below stops at the run's end: searching the whole chunk
    // from each run would be quadratic for chunks of many short runs (progress redraws).
    const run = s.slice(start, end);
    const first = run.indexOf('\n');
    if (first === -1) {
      this.line.print(run);
      return;
    }
    this.line.print(
      run.slice(0, first > 0 && run.charCodeAt(first - 1) === 0x0d ? first - 1 : first),
    );
    this.line.newline();
    // Whole lines with nothing to redraw skip the line model; the line is empty here.
    const last = run.lastIndexOf('\n');
    if (last > first) this.clip.appendLines(run.slice(first + 1, last + 1));
    if (last + 1 < run.length) this.line.print(run.slice(last + 1));
  }
}
