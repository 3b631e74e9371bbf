/**
 * Keeps what a result can show of a call's committed output — the head, and in head-tail
 * mode a rolling tail — in bounded memory, and streams the whole output to a spill file once
 * it outgrows the clip, so nothing is lost from the start however long the output runs.
 */
import { storageErrorCode } from '../ops/storage-health.ts';
import type { CapturedOutput } from '../session/capture.ts';
import { spillRefusedReason } from './contract-text.ts';
import { isHighSurrogate, isLowSurrogate } from './terminal-line.ts';

/** Where the whole rendering goes once it is longer than the clip. */
export interface SpillTarget {
  /** Opens a new file; may throw (the result is then given without a path). */
  open(): SpillWriter;
}

export interface SpillWriter {
  /** Absolute path of the file. */
  readonly path: string;
  /** Queues text; must not block the event loop for long. */
  write(text: string): void;
  /** Resolves when everything written is in the file; rejects if it could not be saved. */
  finish(): Promise<void>;
  /** Closes and removes the file: the output turned out to fit after all. */
  discard(): Promise<void>;
}

/** `head` keeps the start of a long output; `head-tail` keeps its start and its end. */
export type OutputClipMode = 'head' | 'head-tail';

/** What the clip buffer gives: the session's CapturedOutput, under the name this folder uses. */
export type RenderedOutput = CapturedOutput;

/** Head kept beyond the clip, in UTF-16 units: one for the trailing newline that is removed,
 *  one to see whether the cut would split a surrogate pair. */
const HEAD_SLACK_CHARS = 2;
/** Tail kept beyond its share, in UTF-16 units: the trailing newline that is removed. (A
 *  low surrogate at the tail's start always means a split pair: decoded text has no lone
 *  surrogates and the line model never splits a pair.) */
const TAIL_SLACK_CHARS = 1;
/** The rolling tail is trimmed back to what it keeps when it reaches this many times that:
 *  trimming copies the tail, so trimming on every append would be quadratic. */
const TAIL_TRIM_FACTOR = 2;

/** Cuts `text` to at most `maxChars` UTF-16 units, one earlier if the cut would split a pair. */
export function cutAtCodePoint(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const end =
    maxChars > 0 && isHighSurrogate(text.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return text.slice(0, end);
}

/** The last `maxChars` UTF-16 units of `text` at most, one fewer if the cut would split a
 *  pair. A low surrogate at the start is dropped even when `text` is short enough: the
 *  rolling tail may itself begin inside a pair. */
export function tailAtCodePoint(text: string, maxChars: number): string {
  const start = Math.max(text.length - maxChars, 0);
  return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}

export interface ClipBufferOptions {
  maxOutputChars: number;
  clip: OutputClipMode;
  spill: SpillTarget | null;
}

export class ClipBuffer {
  private readonly maxOutputChars: number;
  private readonly headLimit: number;
  private readonly headTail: boolean;
  /** What the rolling tail keeps; 0 in head mode. */
  private readonly tailKeep: number;
  private readonly spill: SpillTarget | null;
  private head = '';
  private tail = '';
  private total = 0;
  private lastCode = -1;
  private writer: SpillWriter | null = null;
  private spillFailed = false;
  /** Why the spill file could not be made or written (said in the result). */
  private spillFailure: string | null = null;

  constructor(options: ClipBufferOptions) {
    this.maxOutputChars = options.maxOutputChars;
    this.headLimit = options.maxOutputChars + HEAD_SLACK_CHARS;
    this.headTail = options.clip === 'head-tail';
    this.tailKeep = this.headTail ? tailChars(options.maxOutputChars) + TAIL_SLACK_CHARS : 0;
    this.spill = options.spill;
  }

  /** UTF-16 units held in memory (head and tail); the spill's own batch is not counted. */
  get retainedChars(): number {
    return this.head.length + this.tail.length;
  }

  /** Appends committed text: to the head while it has room, the tail, and the spill. */
  append(text: string): void {
    if (text.length === 0) return;
    if (this.writer === null && this.total + text.length > this.maxOutputChars) this.openSpill();
    this.writer?.write(text);
    const room = this.headLimit - this.head.length;
    if (room > 0) this.head += text.length <= room ? text : text.slice(0, room);
    if (this.headTail) this.appendTail(text);
    this.total += text.length;
    this.lastCode = text.charCodeAt(text.length - 1);
  }

  /** Appends whole lines whose only CRs are those of CR LF (the renderer's fast path). */
  appendLines(lines: string): void {
    if (this.writer === null && this.head.length >= this.headLimit) {
      // Neither the head nor a spill file reads these characters any more: count them, and
      // build only the end the tail keeps (at most every other character is the CR of a
      // CR LF, so twice the kept length still fills the tail once the CRs are removed).
      let crs = 0;
      for (let p = lines.indexOf('\r'); p !== -1; p = lines.indexOf('\r', p + 1)) crs++;
      this.total += lines.length - crs;
      this.lastCode = 0x0a;
      if (this.headTail) {
        const end = lines.length > 2 * this.tailKeep ? lines.slice(-2 * this.tailKeep) : lines;
        this.appendTail(end.replaceAll('\r', ''));
      }
      return;
    }
    this.append(lines.includes('\r') ? lines.replaceAll('\r', '') : lines);
  }

  /** The clipped result; the spill file is saved when clipped and discarded otherwise. */
  async finish(lostPrefix: boolean): Promise<RenderedOutput> {
    const trailingNewline = this.lastCode === 0x0a;
    const totalChars = this.total - (trailingNewline ? 1 : 0);
    const clipped = totalChars > this.maxOutputChars;
    let text: string;
    let omittedChars = 0;
    let tailStart: number | null = null;
    if (!clipped) {
      text = this.head.slice(0, totalChars);
    } else if (!this.headTail) {
      text = cutAtCodePoint(this.head, this.maxOutputChars);
    } else {
      const tailMax = tailChars(this.maxOutputChars);
      const head = cutAtCodePoint(this.head, this.maxOutputChars - tailMax);
      const end = trailingNewline ? this.tail.slice(0, -1) : this.tail;
      text = head + tailAtCodePoint(end, tailMax);
      tailStart = head.length;
      omittedChars = totalChars - text.length;
    }
    const writer = this.writer;
    let spillPath: string | null = null;
    if (writer !== null && clipped) {
      // A file that could not be saved is not offered; the clip notice still stands, and the
      // result says the file is missing.
      spillPath = await writer.finish().then(
        () => writer.path,
        (error: unknown) => {
          this.spillFailure = failureReason(error);
          return null;
        },
      );
    } else if (writer !== null) {
      await writer.discard().catch(() => undefined);
    }
    const spillFailure = clipped && spillPath === null ? this.spillFailure : null;
    return {
      text,
      clipped,
      totalChars,
      spillPath,
      // Present only when there is something to say (the field is optional).
      ...(spillFailure === null ? {} : { spillFailure }),
      lostPrefix,
      omittedChars,
      tailStart,
    };
  }

  private appendTail(text: string): void {
    if (text.length >= this.tailKeep) {
      // The text alone covers the tail: slice it alone. Joining first would copy the whole
      // (often a long line of many pieces) a second time, halving the newline-free rate.
      this.tail = text.slice(text.length - this.tailKeep);
      return;
    }
    this.tail += text;
    if (this.tail.length >= TAIL_TRIM_FACTOR * this.tailKeep) {
      this.tail = this.tail.slice(-this.tailKeep);
    }
  }

  /** Closes and removes the spill file, if one was opened: nothing will offer it. */
  async discard(): Promise<void> {
    const writer = this.writer;
    this.writer = null;
    await writer?.discard().catch(() => undefined);
  }

  private openSpill(): void {
    if (this.spill === null || this.spillFailed) return;
    try {
      this.writer = this.spill.open();
    } catch (error) {
      this.spillFailed = true;
      this.spillFailure = failureReason(error);
      return;
    }
    this.writer.write(this.head); // the head still holds everything before the clip
  }
}

/** One clause for the result: the disk's code when the disk refused, else what went wrong. */
function failureReason(error: unknown): string {
  const code = storageErrorCode(error);
  if (code !== undefined) return spillRefusedReason(code);
  const errno = (error as { code?: unknown } | null)?.code;
  return spillRefusedReason(typeof errno === 'string' ? errno : 'EIO');
}

/** The tail's share of a head-tail clip: the head gets floor(max / 2), the tail the rest. */
function tailChars(maxOutputChars: number): number {
  return maxOutputChars - Math.floor(maxOutputChars / 2);
}
