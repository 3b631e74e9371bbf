/**
 * The option table of docs/configuration.md, written from the flag table (names, values,
 * variables) and its documentation (defaults, meanings), so the page cannot drift from the
 * flags the server reads. `npm run docs:config` rewrites the page; a test fails when the
 * committed page differs from what this writes.
 */
import { FLAG_DOCS } from './flag-docs.ts';
import { FLAGS, type FlagName, type FlagSpec } from './flags.ts';

export const TABLE_START =
  '<!-- options: written by `npm run docs:config` from server/src/config/flags.ts and flag-docs.ts -->';
export const TABLE_END = '<!-- options: end -->';

/** A table cell: a `|` inside it would end the cell. */
function cell(markdown: string): string {
  return markdown.replaceAll('|', '\\|');
}

export function optionTable(): string {
  const rows = (Object.keys(FLAGS) as FlagName[]).map((name) => {
    const flag: FlagSpec = FLAGS[name];
    const doc = FLAG_DOCS[name];
    const usage = `\`--${name}${flag.value === undefined ? '' : ` ${flag.value}`}\`${flag.multiple ? ' (repeatable)' : ''}`;
    const env =
      flag.env === undefined ? '' : `\`${flag.env}${flag.value === undefined ? '=1' : ''}\``;
    return `| ${cell(usage)} | ${cell(env)} | ${cell(doc.default)} | ${cell(doc.meaning)} |`;
  });
  return ['| flag | environment | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** `page` with the text between its markers replaced by the table; throws when they are missing. */
export function withOptionTable(page: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`docs/configuration.md must hold the lines ${TABLE_START} and ${TABLE_END}`);
  }
  return `${page.slice(0, start + TABLE_START.length)}\n${optionTable()}\n${page.slice(end)}`;
}
