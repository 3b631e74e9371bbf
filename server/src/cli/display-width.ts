/**
 * How many terminal columns a text takes, so the CLI's tables line up with wide names
 * (`山田太郎` is 4 characters and 8 columns). `string-width` would do it, but it is only a
 * dev dependency's dependency here; this covers what a table cell holds (text already made
 * terminal-safe, so no control characters): one column per grapheme, two for East Asian
 * Wide and Fullwidth characters and for emoji shown as emoji, none for a lone combining mark.
 */

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Unicode's East Asian Wide (W) and Fullwidth (F) blocks, outside the emoji. */
const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], // Hangul Jamo initial consonants
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility, enclosed CJK
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x16fe0, 0x18cff], // Tangut, Khitan and their components
  [0x1b000, 0x1b2ff], // Kana supplement and extensions, Nüshu
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x20000, 0x2fffd], // CJK extensions B–F, compatibility supplement
  [0x30000, 0x3fffd], // CJK extensions G–H
];

const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F/u;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;

export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of segmenter.segment(text)) width += graphemeWidth(segment);
  return width;
}

/** `text` followed by spaces up to `width` columns. */
export function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

function graphemeWidth(grapheme: string): number {
  if (ZERO_WIDTH.test(grapheme)) return 0;
  if (EMOJI.test(grapheme)) return 2;
  const code = grapheme.codePointAt(0) ?? 0;
  return WIDE_RANGES.some(([first, last]) => code >= first && code <= last) ? 2 : 1;
}
