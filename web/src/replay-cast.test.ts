import { describe, expect, it } from 'vitest';
import { callStarts, IDLE_LIMIT_MS, parseReplayCast } from './replay-cast.ts';
import { formatPlayback } from './replay-timeline.ts';

const HEADER = JSON.stringify({ version: 2, width: 120, height: 40, timestamp: 1000 });

function cast(...events: unknown[]): string {
  return `${[HEADER, ...events.map((event) => JSON.stringify(event))].join('\n')}\n`;
}

describe('parseReplayCast', () => {
  it('keeps output and resizes as frames and markers apart, shortening idle stretches', () => {
    const parsed = parseReplayCast(
      cast(
        [0.5, 'o', '$ '],
        [1, 'm', 'ls'],
        [1.2, 'o', 'a b\r\n'],
        [601.2, 'r', '80x24'],
        [601.5, 'o', 'x'],
      ),
    );
    expect(parsed.frames).toEqual([
      { at: 500, kind: 'output', data: '$ ' },
      { at: 1200, kind: 'output', data: 'a b\r\n' },
      { at: 1200 + IDLE_LIMIT_MS, kind: 'resize', cols: 80, rows: 24 },
      { at: 1500 + IDLE_LIMIT_MS, kind: 'output', data: 'x' },
    ]);
    expect(parsed.markers).toEqual([{ at: 1000, label: 'ls' }]);
    expect(parsed.durationMs).toBe(1500 + IDLE_LIMIT_MS);
    // A wall-clock instant in the idle stretch lands inside its shortened gap.
    expect(parsed.playbackTime(1000_000 + 1200 + 500)).toBe(1700);
    expect(parsed.playbackTime(1000_000 + 300_000)).toBe(1200 + IDLE_LIMIT_MS);
  });

  it('drops a trailing partial line and keystroke events', () => {
    const parsed = parseReplayCast(
      `${cast([0.1, 'i', 'secret\r'], [0.2, 'o', 'ok'])}[0.3, "o", "cu`,
    );
    expect(parsed.frames).toEqual([{ at: 200, kind: 'output', data: 'ok' }]);
  });

  it('places each call at its start marker, in order, also when commands repeat', () => {
    const parsed = parseReplayCast(
      cast([1, 'm', 'ls'], [2, 'm', 'end: ls'], [3, 'm', 'ls'], [4, 'm', 'end: ls']),
    );
    const at = '1970-01-01T00:16:40.000Z';
    expect(
      callStarts(parsed, [
        { command: 'ls', startedAt: at },
        { command: 'ls', startedAt: at },
      ]),
    ).toEqual([1000, 3000]);
  });
});

describe('formatPlayback', () => {
  it('shows minutes, seconds and tenths, and hours past one', () => {
    expect(formatPlayback(0)).toBe('0:00.0');
    expect(formatPlayback(65_340)).toBe('1:05.3');
    expect(formatPlayback(3_725_000)).toBe('1:02:05.0');
  });
});
