/**
 * Writing asciicast v2 (reading it is shared/src/asciicast.ts): whole lines only, so a file
 * cut short by a crash ends at worst in one partial line, which reading drops.
 */
import {
  type AsciicastHeader,
  completeLines,
  type EventCode,
} from '../../../shared/src/asciicast.ts';

const MS_PER_SECOND = 1000;

export function headerLine(header: AsciicastHeader): string {
  return `${JSON.stringify(header)}\n`;
}

/** One event line; `elapsedMs` since the header's timestamp, kept to the millisecond. */
export function eventLine(elapsedMs: number, code: EventCode, data: string): string {
  return `${JSON.stringify([Math.max(0, Math.round(elapsedMs)) / MS_PER_SECOND, code, data])}\n`;
}

/**
 * One recording from the parts of a rotated one, oldest first: the first part's header, then
 * every part's events. Each part carries the same header, so a part whose predecessors were
 * deleted by retention still starts a valid file.
 */
export function joinParts(parts: readonly string[]): string {
  let joined = '';
  for (const part of parts) {
    const lines = completeLines(part);
    const header = lines.shift();
    if (header === undefined) continue;
    if (joined === '') joined = `${header}\n`;
    for (const line of lines) if (line !== '') joined += `${line}\n`;
  }
  return joined;
}
