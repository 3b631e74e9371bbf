/**
 * Columns aligned with two spaces between them, as the CLI prints its lists. Every cell is
 * made terminal-safe first (it may hold what an agent or a person wrote), then measured in
 * terminal columns, so wide names keep the columns straight.
 */

import { terminalSafe } from '../ops/terminal-safe.ts';
import { displayWidth, padToWidth } from './display-width.ts';

export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows].map((row) => row.map((cell) => terminalSafe(cell)));
  const widths = header.map((_, column) =>
    Math.max(...all.map((row) => displayWidth(row[column] ?? ''))),
  );
  return all
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : padToWidth(cell, widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}
