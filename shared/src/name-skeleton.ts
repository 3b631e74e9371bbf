/**
 * A name's confusable skeleton (after UTS #39, section 4): two names with the same skeleton
 * look alike on a page ("Bob" and "Воb" with a Cyrillic "В" and "о"), so a person could pass
 * for another. No maintained npm package of the Unicode confusables table is in the project,
 * so this is a compact version of its common part: compatibility forms folded (NFKC, so
 * full-width and styled letters are plain ones), case folded, the Cyrillic and Greek letters
 * that are drawn like Latin ones mapped to them, and the digits and marks drawn like letters.
 * It misses rarer scripts' look-alikes; it never makes two names that look different equal.
 */

/** Letters and signs drawn like a Latin letter (or a pair), after case folding. */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  һ: 'h',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ь: 'b',
  ӏ: 'l',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ς: 'c',
  ϲ: 'c',
  μ: 'u',
  ζ: 'z',
  // Latin letters and digits drawn like others
  ı: 'i',
  ɑ: 'a',
  ɡ: 'g',
  ℓ: 'l',
  '0': 'o',
  '1': 'l',
  '|': 'l',
  '5': 's',
  '3': 'e',
};

/** Pairs of letters that read as one at a glance ("rn" as "m", "vv" as "w"). */
const LOOK_ALIKE_PAIRS: readonly (readonly [RegExp, string])[] = [
  [/rn/g, 'm'],
  [/vv/g, 'w'],
  [/cl/g, 'd'],
];

/** What a name looks like, for comparing with other names (not for showing). */
export function nameSkeleton(name: string): string {
  let folded = '';
  for (const char of name.normalize('NFKC').toLowerCase().normalize('NFD')) {
    folded += LOOK_ALIKES[char] ?? char;
  }
  // Letters i and l are confused with each other too: one of them stands for both.
  folded = folded.replace(/i/g, 'l');
  for (const [pair, single] of LOOK_ALIKE_PAIRS) folded = folded.replace(pair, single);
  return folded.replace(/\s+/gu, ' ').trim().normalize('NFC');
}

/**
 * The first of `others` that looks like `name` without being it, if any. The same name is not
 * a look-alike: two people may share a name (a link holder is always shown as one).
 */
export function lookAlikeOf(name: string, others: Iterable<string>): string | undefined {
  const skeleton = nameSkeleton(name);
  for (const other of others) {
    if (other !== name && nameSkeleton(other) === skeleton) return other;
  }
  return undefined;
}
