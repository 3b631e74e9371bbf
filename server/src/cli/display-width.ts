/**
 * How many terminal columns a text takes, so the CLI's tables line up with wide names
 * (`山田太郎` is 4 characters and 8 columns): `string-width` (graphemes, East Asian Wide and
 * Fullwidth, emoji, zero-width marks), the maintained answer to a generic question.
 */
import stringWidth from 'string-width';

export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** `text` followed by spaces up to `width` columns. */
export function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}
