/**
 * What the CLI prints, and what the server logs of an agent's, is safe for the terminal it
 * reaches (issue 13): agents, their commands, what their shells print and people's names are
 * untrusted text, and a raw ESC, OSC 52 or U+202E would act on the user's terminal (write
 * their clipboard, retitle it, reverse the line) instead of showing. Every table cell and
 * message goes through here: control characters (C0, DEL, C1) and invisible format characters
 * (bidi, zero-width) become visible escapes.
 */

/** C0 (but the kept ones), DEL, C1; Unicode format characters and line/paragraph separators. */
const UNSAFE = /[\x00-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * `text` with every unsafe character shown as an escape (`\x1b`, `\u202e`). With `lines`,
 * newlines and tabs are kept as they are (a result text, a message of several lines).
 */
export function terminalSafe(text: string, lines = false): string {
  return text.replace(UNSAFE, (char) => {
    if (lines && (char === '\n' || char === '\t')) return char;
    return escapeOf(char);
  });
}

/** JSON for the terminal: JSON escapes C0 itself, but leaves C1 and format characters raw. */
export function terminalSafeJson(value: unknown): string {
  // The raw newlines are the layout's own: JSON escapes every one inside a string.
  return JSON.stringify(value, null, 2).replace(UNSAFE, (char) => {
    if (char === '\n') return char;
    const code = char.codePointAt(0) ?? 0;
    return `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

function escapeOf(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code === 0x0a) return '\\n';
  if (code === 0x09) return '\\t';
  if (code === 0x0d) return '\\r';
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}
