import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ROW_PX,
  OVERSCAN_ROWS,
  RowHeights,
  rowWindow,
  WINDOW_ABOVE,
} from './row-window.ts';

const even = () => 30;

describe('rowWindow', () => {
  it('draws a short list whole', () => {
    expect(rowWindow(WINDOW_ABOVE, even, 5000, 800)).toEqual({
      start: 0,
      end: WINDOW_ABOVE,
      above: 0,
      below: 0,
    });
  });

  it('draws the viewport and a margin of a long list, the space of the rest around them', () => {
    const range = rowWindow(3000, even, 30 * 1000, 300);
    expect(range.start).toBe(1000 - OVERSCAN_ROWS);
    expect(range.end).toBe(1010 + OVERSCAN_ROWS);
    expect(range.above).toBe(range.start * 30);
    expect(range.below).toBe((3000 - range.end) * 30);
  });

  it('starts at the first row while the list is below the viewport’s top', () => {
    const range = rowWindow(3000, even, -400, 800);
    expect(range.start).toBe(0);
    expect(range.end).toBe(14 + OVERSCAN_ROWS);
  });

  it('keeps the last rows when the viewport is past the list’s end', () => {
    const range = rowWindow(3000, even, 10_000_000, 800);
    expect(range.end).toBe(3000);
    expect(range.below).toBe(0);
    expect(range.start).toBe(2999 - OVERSCAN_ROWS);
  });

  it('goes by each row’s own height', () => {
    // Rows 0..999 are 60 px, the rest 30: the viewport at 60 000 px is at row 1000.
    const range = rowWindow(3000, (i) => (i < 1000 ? 60 : 30), 60_000, 300, 0);
    expect(range.start).toBe(1000);
    expect(range.end).toBe(1010);
    expect(range.above).toBe(60_000);
  });
});

describe('RowHeights', () => {
  it('answers the measured height, else the average of those measured', () => {
    const heights = new RowHeights();
    expect(heights.of('a')).toBe(DEFAULT_ROW_PX);
    heights.set('a', 30);
    heights.set('b', 50);
    expect(heights.of('a')).toBe(30);
    expect(heights.of('c')).toBe(40);
    heights.set('b', 30);
    expect(heights.of('c')).toBe(30);
    heights.forget('a');
    heights.forget('b');
    expect(heights.of('c')).toBe(DEFAULT_ROW_PX);
  });
});
