import { describe, expect, it } from 'vitest';
import { lookAlikeOf, nameSkeleton } from './name-skeleton.ts';
import { checkDisplayName } from './names.ts';

describe('nameSkeleton', () => {
  it.each([
    ['Cyrillic letters', 'Воb', 'Bob'],
    ['Greek letters', 'Αnnα', 'Anna'],
    ['full-width letters', 'Ｃａｒｏｌ', 'Carol'],
    ['another case', 'CAROL', 'carol'],
    ['a digit for a letter', 'B0b', 'Bob'],
    ['an l for an I', 'lvan', 'Ivan'],
    ['rn for m', 'Mirna', 'Mima'],
  ])('gives %s the same skeleton as the plain name', (_what, lookAlike, plain) => {
    expect(nameSkeleton(lookAlike)).toBe(nameSkeleton(plain));
  });

  it.each([
    ['Bob', 'Rob'],
    ['Ann', 'Anna'],
    ['José', 'Jose'],
  ])('keeps %s and %s apart', (a, b) => {
    expect(nameSkeleton(a)).not.toBe(nameSkeleton(b));
  });
});

describe('lookAlikeOf', () => {
  it('names the look-alike, never the same name', () => {
    expect(lookAlikeOf('Воb', ['Ann', 'Bob'])).toBe('Bob');
    expect(lookAlikeOf('Bob', ['Ann', 'Bob'])).toBeUndefined();
    expect(lookAlikeOf('Rob', ['Ann', 'Bob'])).toBeUndefined();
  });
});

describe('checkDisplayName', () => {
  it.each([
    ['the braille blank', 'Ann\u2800', '2800'],
    ['a combining grapheme joiner', 'An\u034fn', '034F'],
    ['a variation selector', 'Ann\ufe0f', 'FE0F'],
    ['a Hangul choseong filler', '\u115fAnn', '115F'],
    ['a Mongolian free variation selector', 'An\u180bn', '180B'],
  ])('refuses %s (a default-ignorable or blank code point)', (_what, raw, code) => {
    expect(checkDisplayName(raw)).toEqual({
      error: `a name may not hold control, bidi or invisible characters (U+${code} found)`,
    });
  });

  it('keeps a name of letters from any script', () => {
    expect(checkDisplayName(' Zoë Ωmega 李 ')).toEqual({ name: 'Zoë Ωmega 李' });
  });
});
