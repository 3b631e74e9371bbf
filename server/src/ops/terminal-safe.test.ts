import { describe, expect, it } from 'vitest';
import { textTable } from '../cli/text-table.ts';
import { terminalSafe, terminalSafeJson } from './terminal-safe.ts';

describe('terminal-safe CLI output', () => {
  it('shows ESC, OSC 52, C1, DEL and bidi or zero-width characters as escapes', () => {
    expect(terminalSafe('a\x1b]52;c;aGk=\x07b\x9b31m\x7f\u202eevil\u200b')).toBe(
      'a\\x1b]52;c;aGk=\\x07b\\x9b31m\\x7f\\u202eevil\\u200b',
    );
  });

  it('keeps newlines and tabs only where lines are allowed', () => {
    expect(terminalSafe('a\tb\nc\rd', true)).toBe('a\tb\nc\\rd');
    expect(terminalSafe('a\tb\nc', false)).toBe('a\\tb\\nc');
  });

  it('leaves ordinary text, accents and emoji alone', () => {
    expect(terminalSafe('Zoë — 日本 🚀', true)).toBe('Zoë — 日本 🚀');
  });

  it('escapes every table cell before measuring it', () => {
    expect(textTable(['NAME', 'X'], [['\x1b[2J', 'y']])).toBe('NAME     X\n\\x1b[2J  y\n');
  });

  it('gives JSON that parses back to the same text, with nothing raw in it', () => {
    const value = { name: 'a\u202eb\x9bc\x1b' };
    const json = terminalSafeJson(value);
    expect(json).not.toMatch(/[\u202e\x9b\x1b]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});
