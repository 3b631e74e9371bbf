/**
 * A recording (asciicast v2) made ready to play: output and resize frames on a playback clock
 * whose idle stretches are shortened, the call markers kept apart (they are never written to the
 * terminal), and the mapping from a wall-clock instant to that clock.
 */

import { parseAsciicast } from '../../shared/src/asciicast.ts';

export type ReplayFrame =
  | { readonly at: number; readonly kind: 'output'; readonly data: string }
  | { readonly at: number; readonly kind: 'resize'; readonly cols: number; readonly rows: number };

export interface ReplayMarker {
  readonly at: number;
  readonly label: string;
}

export interface ReplayCast {
  readonly cols: number;
  readonly rows: number;
  /** Playback milliseconds of the last event. */
  readonly durationMs: number;
  readonly frames: readonly ReplayFrame[];
  readonly markers: readonly ReplayMarker[];
  /** Where a wall-clock instant (ms since the epoch) falls on the playback clock. */
  playbackTime(wallMs: number): number;
}

/**
 * A pause longer than this plays as this long: a shell idle for an hour between two calls
 * replays in a moment, as asciinema's idle_time_limit does.
 */
export const IDLE_LIMIT_MS = 2000;
const MS_PER_SECOND = 1000;
const RESIZE = /^(\d+)x(\d+)$/;

interface Point {
  /** Milliseconds since the header's timestamp, as recorded. */
  readonly raw: number;
  /** The same moment on the playback clock. */
  readonly play: number;
}

/** Parses a recording; a trailing partial line (the server was killed mid-write) is dropped. */
export function parseReplayCast(text: string): ReplayCast {
  const { header, events } = parseAsciicast(text);
  // Optional in the format (other tools' files may lack it): events then count from 0.
  const epochMs = typeof header.timestamp === 'number' ? header.timestamp * MS_PER_SECOND : 0;
  const frames: ReplayFrame[] = [];
  const markers: ReplayMarker[] = [];
  const points: Point[] = [];
  let previous: Point = { raw: 0, play: 0 };
  for (const [seconds, code, data] of events) {
    const raw = seconds * MS_PER_SECOND;
    const play = previous.play + Math.min(Math.max(0, raw - previous.raw), IDLE_LIMIT_MS);
    previous = { raw, play };
    points.push(previous);
    if (code === 'o') frames.push({ at: play, kind: 'output', data });
    else if (code === 'm') markers.push({ at: play, label: data });
    else if (code === 'r') {
      const size = RESIZE.exec(data);
      if (size)
        frames.push({ at: play, kind: 'resize', cols: Number(size[1]), rows: Number(size[2]) });
    }
    // 'i' (keystrokes) is what a controller typed; what it did is already in the output.
  }
  return {
    cols: header.width,
    rows: header.height,
    durationMs: previous.play,
    frames,
    markers,
    playbackTime: (wallMs) => toPlayback(points, wallMs - epochMs),
  };
}

/** The playback time of a raw instant: after the last event at or before it, idle-limited. */
function toPlayback(points: readonly Point[], raw: number): number {
  let low = 0;
  let high = points.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((points[middle] as Point).raw <= raw) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (found === -1) return 0;
  const point = points[found] as Point;
  const next = points[found + 1];
  const play = point.play + Math.min(raw - point.raw, IDLE_LIMIT_MS);
  return next === undefined ? play : Math.min(play, next.play);
}

/**
 * Where each call starts on the playback clock: its start marker (labelled with its command,
 * matched in order), else its recorded start time.
 */
export function callStarts(
  cast: ReplayCast,
  calls: readonly { readonly command: string; readonly startedAt: string }[],
): number[] {
  let from = 0;
  return calls.map((call) => {
    const index = cast.markers.findIndex((marker, i) => i >= from && marker.label === call.command);
    if (index !== -1) {
      from = index + 1;
      return (cast.markers[index] as ReplayMarker).at;
    }
    return cast.playbackTime(Date.parse(call.startedAt));
  });
}
