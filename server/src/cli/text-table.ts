/**
 * Columns aligned with two spaces between them, as the CLI prints its lists. Every cell is
 * made terminal-safe first (it may hold what an agent or a person wrote), then measured.
 */
import { terminalSafe } from './terminal-safe.ts';

export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows].map((row) => row.map((cell) => terminalSafe(cell)));
  const widths = header.map((_, column) =>
    Math.max(...all.map((row) => (row[column] ?? '').length)),
  );
  return all
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}
