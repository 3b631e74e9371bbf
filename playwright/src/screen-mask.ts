/**
 * Masks for screen snapshots, as Playwright's screenshot `mask` hides what changes between
 * runs: a pattern (a clock, an id, a temporary path) or a region of the screen. What a mask
 * covers reads `[masked]` on both sides of the comparison and in the snapshot file.
 */

/** What a mask leaves in place of what it covers (one per match, one per row of a region). */
export const MASKED = '[masked]';

/** Part of the screen: rows and columns count from 0, as lines of the snapshot file. */
export interface ScreenRegion {
  readonly row: number;
  /** Default 0: from the start of the row. */
  readonly column?: number;
  /** Columns covered; default: to the end of the row. */
  readonly width?: number;
  /** Rows covered; default 1. */
  readonly height?: number;
}

export type ScreenMask = RegExp | ScreenRegion;

function isRegion(mask: ScreenMask): mask is ScreenRegion {
  return !(mask instanceof RegExp);
}

/** Checks masks once, so a mistake names itself instead of failing as a mismatch. */
export function checkMasks(masks: readonly unknown[]): readonly ScreenMask[] {
  for (const mask of masks) {
    if (mask instanceof RegExp) continue;
    const region = mask as Partial<Record<keyof ScreenRegion, unknown>> | null;
    const whole = (value: unknown): boolean =>
      value === undefined || (Number.isInteger(value) && (value as number) >= 0);
    if (
      typeof region !== 'object' ||
      region === null ||
      !Number.isInteger(region.row) ||
      !whole(region.row) ||
      !whole(region.column) ||
      !whole(region.width) ||
      !whole(region.height)
    ) {
      throw new Error(
        `mask ${JSON.stringify(mask)} is neither a RegExp nor a region { row, column?, width?, height? } of whole numbers ≥ 0`,
      );
    }
  }
  return masks as readonly ScreenMask[];
}

/** `screen` with every region, then every pattern, covered. */
export function maskScreen(screen: string, masks: readonly ScreenMask[]): string {
  if (masks.length === 0) return screen;
  const rows = screen.split('\n');
  for (const region of masks.filter(isRegion)) {
    const column = region.column ?? 0;
    const end = region.width === undefined ? Number.POSITIVE_INFINITY : column + region.width;
    for (let row = region.row; row < region.row + (region.height ?? 1); row += 1) {
      const line = rows[row];
      // A row that ends before the region has nothing there to hide.
      if (line === undefined || line.length <= column) continue;
      rows[row] = `${line.slice(0, column)}${MASKED}${line.slice(end)}`;
    }
  }
  let masked = rows.join('\n');
  for (const pattern of masks.filter((mask): mask is RegExp => mask instanceof RegExp)) {
    const global = pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
    masked = masked.replace(global, MASKED);
  }
  return masked;
}
