import { describe, expect, it } from 'vitest';
import { textTable } from './text-table.ts';

describe('textTable', () => {
  it('lines up columns by display width, so wide names keep the next column straight', () => {
    const table = textTable(
      ['AGENT', 'STATE'],
      [
        ['山田太郎 (person)', 'idle'],
        ['cli-list', 'running'],
      ],
    );
    expect(table).toBe(
      [
        'AGENT              STATE',
        '山田太郎 (person)  idle',
        'cli-list           running',
        '',
      ].join('\n'),
    );
  });
});
