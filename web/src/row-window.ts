/**
 * Which rows of a long list are in the document: those in the viewport and a margin around
 * it (the dashboard with thousands of shells draws a hundred rows, not thousands). Rows may
 * differ in height (a state badge that wraps, a phone's cards): each row's height is its
 * measured one when it has been drawn, else the average of those measured. Pure: the page
 * measures and places, this decides.
 */

/** Lists this long or shorter are drawn whole: a few hundred rows cost little. */
export const WINDOW_ABOVE = 300;
/**
 * Rows drawn beyond each edge of the viewport, so a scroll or Tab finds them there. Each one
 * costs a frame its layout when the window moves (12: ~420 px each side on a wide screen).
 */
export const OVERSCAN_ROWS = 12;
/** A row's height before any has been measured (a compact table row). */
export const DEFAULT_ROW_PX = 33;

export interface RowWindow {
  /** First row drawn (index into the list). */
  readonly start: number;
  /** One past the last row drawn. */
  readonly end: number;
  /** Heights (px) of the space standing for the rows above and below those drawn. */
  readonly above: number;
  readonly below: number;
}

/**
 * `heightOf(i)`: row i's height, measured or estimated. `top`: where the viewport's top is,
 * in px from the list's first row (negative: the list starts below it); `viewport`: its height.
 */
export function rowWindow(
  count: number,
  heightOf: (index: number) => number,
  top: number,
  viewport: number,
  overscan = OVERSCAN_ROWS,
): RowWindow {
  if (count <= WINDOW_ABOVE) return { start: 0, end: count, above: 0, below: 0 };
  const bottom = top + viewport;
  let offset = 0;
  let first = count;
  let last = count;
  for (let i = 0; i < count; i++) {
    const height = heightOf(i);
    if (first === count && offset + height > top) first = i;
    if (offset >= bottom) {
      last = i;
      break;
    }
    offset += height;
  }
  // Past the end (the list shrank under the viewport): the last rows.
  if (first === count) first = Math.max(0, count - 1);
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, Math.max(last, first + 1) + overscan);
  let above = 0;
  for (let i = 0; i < start; i++) above += heightOf(i);
  let below = 0;
  for (let i = end; i < count; i++) below += heightOf(i);
  return { start, end, above, below };
}

/** Measured heights by key, and their average for the rows not yet drawn. */
export class RowHeights {
  private readonly measured = new Map<string, number>();
  private sum = 0;

  /** The row's measured height, else the average of those measured. */
  of(key: string): number {
    return this.measured.get(key) ?? this.average();
  }

  average(): number {
    return this.measured.size === 0 ? DEFAULT_ROW_PX : this.sum / this.measured.size;
  }

  set(key: string, height: number): void {
    if (height <= 0) return;
    this.sum += height - (this.measured.get(key) ?? 0);
    this.measured.set(key, height);
  }

  forget(key: string): void {
    const height = this.measured.get(key);
    if (height === undefined) return;
    this.sum -= height;
    this.measured.delete(key);
  }

  /** Every measurement goes (the layout changed: a phone turned, the window was resized). */
  clear(): void {
    this.measured.clear();
    this.sum = 0;
  }
}
