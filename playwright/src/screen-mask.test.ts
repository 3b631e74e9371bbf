import { describe, expect, it } from 'vitest';
import { checkMasks, maskScreen } from './screen-mask.ts';

const SCREEN = ['$ date', 'Wed Dec  2 05:46:04 UTC 2026', '$ ls', 'a.txt  b.txt', '$'].join('\n');

describe('maskScreen', () => {
  it('covers every match of a pattern with [masked], global flag or not', () => {
    expect(maskScreen('12:00 then 13:45', [/\d\d:\d\d/])).toBe('[masked] then [masked]');
    expect(maskScreen('12:00 then 13:45', [/\d\d:\d\d/g])).toBe('[masked] then [masked]');
  });

  it('covers a region: a whole row, or columns of rows', () => {
    expect(maskScreen(SCREEN, [{ row: 1 }])).toBe(
      ['$ date', '[masked]', '$ ls', 'a.txt  b.txt', '$'].join('\n'),
    );
    expect(maskScreen(SCREEN, [{ row: 1, column: 11, width: 8 }])).toBe(
      ['$ date', 'Wed Dec  2 [masked] UTC 2026', '$ ls', 'a.txt  b.txt', '$'].join('\n'),
    );
    // A row that ends before the region's column has nothing there to cover.
    expect(maskScreen(SCREEN, [{ row: 3, column: 7, height: 2 }])).toBe(
      ['$ date', 'Wed Dec  2 05:46:04 UTC 2026', '$ ls', 'a.txt  [masked]', '$'].join('\n'),
    );
  });

  it('leaves the screen as it is without masks', () => {
    expect(maskScreen(SCREEN, [])).toBe(SCREEN);
  });
});

describe('checkMasks', () => {
  it('names a mask that is neither a pattern nor a region', () => {
    expect(() => checkMasks([{ row: -1 }])).toThrow(
      'mask {"row":-1} is neither a RegExp nor a region { row, column?, width?, height? } of whole numbers ≥ 0',
    );
    expect(() => checkMasks(['12:00'])).toThrow('mask "12:00" is neither a RegExp');
    expect(checkMasks([/x/, { row: 0, column: 2, width: 3, height: 1 }])).toHaveLength(2);
  });
});
