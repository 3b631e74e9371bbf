/** `text` as one bash word in single quotes, exactly (a `'` inside becomes `'\''`). */
export function bashSingleQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
