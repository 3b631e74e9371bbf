/**
 * Reading asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/), the recordings'
 * format, for the server and the replay page alike: a JSON header line, then one JSON array per
 * event, `[seconds, code, data]`. Lines are written whole, so a file cut short by a crash ends
 * at worst in one partial line, which reading drops.
 */

export interface AsciicastHeader {
  readonly version: 2;
  readonly width: number;
  readonly height: number;
  /** Unix time (seconds) of the shell's start: every event's time counts from it. */
  readonly timestamp: number;
  readonly title?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** Output, input (keystrokes), resize (`COLSxROWS`), marker (a label). */
export type EventCode = 'o' | 'i' | 'r' | 'm';

export type AsciicastEvent = readonly [number, EventCode, string];

export const ASCIICAST_CONTENT_TYPE = 'application/x-asciicast';

const EVENT_CODES: ReadonlySet<string> = new Set(['o', 'i', 'r', 'm']);

export interface ParsedAsciicast {
  readonly header: AsciicastHeader;
  readonly events: AsciicastEvent[];
}

/** Parses a recording; a trailing partial line (a crash mid-write) is dropped, not an error. */
export function parseAsciicast(text: string): ParsedAsciicast {
  const lines = completeLines(text);
  const first = lines.shift();
  if (first === undefined) throw new Error('an asciicast needs a header line');
  const header = parseHeader(first);
  const events = lines.filter((line) => line !== '').map(parseEvent);
  return { header, events };
}

/** The lines that ended with a newline (the part after the last one is a partial write). */
export function completeLines(text: string): string[] {
  const end = text.lastIndexOf('\n');
  return end === -1 ? [] : text.slice(0, end).split('\n');
}

function parseHeader(line: string): AsciicastHeader {
  const value: unknown = JSON.parse(line);
  if (
    typeof value !== 'object' ||
    value === null ||
    !('version' in value) ||
    value.version !== 2 ||
    !('width' in value) ||
    typeof value.width !== 'number' ||
    !('height' in value) ||
    typeof value.height !== 'number'
  ) {
    throw new Error('not an asciicast v2 header');
  }
  return value as AsciicastHeader;
}

function parseEvent(line: string): AsciicastEvent {
  const value: unknown = JSON.parse(line);
  if (
    !Array.isArray(value) ||
    value.length !== 3 ||
    typeof value[0] !== 'number' ||
    typeof value[1] !== 'string' ||
    !EVENT_CODES.has(value[1]) ||
    typeof value[2] !== 'string'
  ) {
    throw new Error(`not an asciicast v2 event: ${line.slice(0, 80)}`);
  }
  return [value[0], value[1] as EventCode, value[2]];
}
