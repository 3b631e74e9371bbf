/**
 * Composes the exact text a model reads as a tool call's result from the rendered output
 * and how the call ended, in the order TOOL-CONTRACT.md prescribes.
 */
import type { Dialect } from '../../../shared/src/api.ts';
import {
  clipNotice,
  exitCodeLine,
  fullOutputNotSavedLine,
  fullOutputSavedLine,
  humanUsedLine,
  LOST_PREFIX_NOTICE,
  omittedCharsLine,
  resetLine,
  SHELL_EXITED_LINE,
  shellExitedWithCodeLine,
  shellKilledBySignalLine,
  timeoutHeader,
  waitingForInputLine,
} from './contract-text.ts';
import { cutAtCodePoint, type RenderedOutput } from './output-renderer.ts';

/** Longest human summary, in UTF-16 units, ellipsis included (the contract says ≤ 500). */
export const HUMAN_SUMMARY_MAX_CHARS = 500;
const ELLIPSIS = '…';
const MS_PER_SECOND = 1000;

export type CallEnding =
  | { kind: 'completed'; exitCode: number }
  | { kind: 'waiting_input'; processName: string }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'shell_exit'; code?: number | null; signal?: string | null };

export interface ResultInput {
  dialect: Dialect;
  /** What OutputRenderer.finish() gave (its length is not needed here). */
  output: Omit<RenderedOutput, 'totalChars'>;
  ending: CallEnding;
  /** What a human ran in this shell since the last result; null or absent: nobody did. */
  humanSummary?: string | null;
}

/** Joins two parts with one newline, or gives the non-empty one alone. */
function joinLines(before: string, after: string): string {
  if (before === '') return after;
  if (after === '') return before;
  return `${before}\n${after}`;
}

/**
 * The output with its notices: lost-prefix notice, text, clip notice, saved-file line. A
 * head-tail clip puts the notice and the omitted count on lines of their own between head
 * and tail, each part joined by exactly one newline whatever it ends with, so the head and
 * the tail read back exactly; the saved-file line then follows the tail.
 */
export function outputText(output: ResultInput['output'], dialect: Dialect): string {
  const prefix = output.lostPrefix ? `${LOST_PREFIX_NOTICE}\n` : '';
  // The path is what the notice's "this file" refers to, so it only ever follows it.
  const saved =
    output.spillPath !== null
      ? `\n${fullOutputSavedLine(output.spillPath)}`
      : output.spillFailure
        ? `\n${fullOutputNotSavedLine(output.spillFailure)}`
        : '';
  const { tailStart } = output;
  if (tailStart != null) {
    const head = output.text.slice(0, tailStart);
    const tail = output.text.slice(tailStart);
    const omitted = omittedCharsLine(output.omittedChars);
    return `${prefix}${head}\n${clipNotice(dialect)}\n${omitted}\n${tail}${saved}`;
  }
  const text = prefix + output.text;
  return output.clipped || output.lostPrefix ? text + clipNotice(dialect) + saved : text;
}

/** Escape sequences a human's keystrokes may carry (arrows: CSI, SS3), dropped whole. */
const KEY_SEQUENCE = /\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|O.|.)?/g;
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

/** One line of at most HUMAN_SUMMARY_MAX_CHARS: line breaks become `; ` (they separate
 *  commands), escape sequences and other controls are dropped, the rest is cut with an
 *  ellipsis. */
export function humanSummaryText(summary: string): string {
  const oneLine = summary
    .split(/[\r\n\u2028\u2029]+/)
    .map((part) => part.replace(/\t/g, ' ').replace(KEY_SEQUENCE, '').replace(CONTROL, '').trim())
    .filter((part) => part !== '')
    .join('; ');
  if (oneLine.length <= HUMAN_SUMMARY_MAX_CHARS) return oneLine;
  return cutAtCodePoint(oneLine, HUMAN_SUMMARY_MAX_CHARS - ELLIPSIS.length) + ELLIPSIS;
}

function shellExitLine(ending: Extract<CallEnding, { kind: 'shell_exit' }>): string {
  // A signal wins over a code: node-pty reports code 0 alongside the signal of a killed shell.
  if (ending.signal != null && ending.signal !== '') return shellKilledBySignalLine(ending.signal);
  if (ending.code != null) return shellExitedWithCodeLine(ending.code);
  return SHELL_EXITED_LINE;
}

/**
 * The model-facing result. Empty output with exit status 0 gives the empty string; every
 * status or notice line is separated from what precedes it by exactly one newline, and the
 * result never ends with a newline added by us.
 */
export function composeResult(input: ResultInput): string {
  const { dialect, ending } = input;
  const output = outputText(input.output, dialect);
  let body: string;
  switch (ending.kind) {
    case 'completed':
      body = ending.exitCode === 0 ? output : joinLines(output, exitCodeLine(ending.exitCode));
      break;
    case 'waiting_input':
      body = joinLines(output, waitingForInputLine(ending.processName));
      break;
    case 'timeout':
      body = joinLines(
        joinLines(timeoutHeader(Math.round(ending.timeoutMs / MS_PER_SECOND)), output),
        resetLine(dialect),
      );
      break;
    case 'shell_exit':
      body = joinLines(joinLines(output, shellExitLine(ending)), resetLine(dialect));
      break;
  }
  if (input.humanSummary == null) return body;
  return joinLines(humanUsedLine(humanSummaryText(input.humanSummary)), body);
}
