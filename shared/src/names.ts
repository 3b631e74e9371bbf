/**
 * Display names people see next to each other's actions (issue 13): a name may not hold
 * characters that act instead of showing — control characters, bidi overrides and isolates
 * (U+202E reversed a page's text), zero-width and other invisible format characters, line
 * and paragraph separators, every Default_Ignorable_Code_Point (the Hangul fillers, variation
 * selectors, U+115F…) and the braille blank U+2800, which render as nothing or as a blank — so
 * a name is what it looks like, and every viewer sees the same thing.
 */

/** The longest display name, in characters (UTF-16 units, as the schema counts). */
export const MAX_DISPLAY_NAME_CHARS = 60;

/** Cc, Cf (bidi, zero-width, soft hyphen…), Zl, Zp, the default-ignorables, the braille blank. */
const REFUSED_CHARACTER = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800]/u;

/**
 * The name as kept (trimmed, NFC), or why it is refused: a message naming the first refused
 * character's code point.
 */
export function checkDisplayName(raw: string): { name: string } | { error: string } {
  const name = raw.normalize('NFC').trim();
  if (name === '') return { error: 'a name must have something other than white space' };
  if (name.length > MAX_DISPLAY_NAME_CHARS) {
    return { error: `a name may be at most ${MAX_DISPLAY_NAME_CHARS} characters long` };
  }
  const refused = REFUSED_CHARACTER.exec(name)?.[0];
  if (refused !== undefined) {
    const code = (refused.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    return {
      error: `a name may not hold control, bidi or invisible characters (U+${code} found)`,
    };
  }
  return { name };
}
