import { describe, expect, it } from 'vitest';
import { LONG_LINE_COMMIT_CHARS, MAX_BLANK_COLUMNS, TerminalLine } from './terminal-line.ts';

/** A line whose commits are collected; `text()` flushes it and gives all committed text. */
function newLine(commitChars?: number): {
  line: TerminalLine;
  committed: string[];
  text: () => string;
} {
  const committed: string[] = [];
  const line = new TerminalLine((t) => committed.push(t), commitChars);
  return {
    line,
    committed,
    text: () => {
      line.flush();
      return committed.join('');
    },
  };
}

describe('TerminalLine: printing and committing', () => {
  it('appends at the end and overwrites at the cursor', () => {
    const { line, text } = newLine();
    line.print('hello');
    line.carriageReturn();
    line.print('J');
    expect(text()).toBe('Jello');
  });

  it('commits the line with its LF on newline and starts an empty one', () => {
    const { line, committed } = newLine();
    line.print('one');
    line.newline();
    expect(committed).toEqual(['one\n']);
    expect(line.length).toBe(0);
    line.newline();
    expect(committed).toEqual(['one\n', '\n']);
  });

  it('commits the rest without a line end on flush, and nothing when empty', () => {
    const { line, committed } = newLine();
    line.flush();
    expect(committed).toEqual([]);
    line.print('partial');
    line.flush();
    expect(committed).toEqual(['partial']);
    expect(line.length).toBe(0);
  });

  it('reports the UTF-16 units it holds', () => {
    const { line } = newLine();
    line.print('a😀');
    expect(line.length).toBe(3);
  });

  it('overwrites a surrogate pair as one column, and one column with a pair', () => {
    const a = newLine();
    a.line.print('a😀b');
    a.line.carriageReturn();
    a.line.print('xy');
    expect(a.text()).toBe('xyb');
    const b = newLine();
    b.line.print('abc');
    b.line.carriageReturn();
    b.line.print('😀');
    expect(b.text()).toBe('😀bc');
  });

  it('keeps TAB as one column', () => {
    const { line, text } = newLine();
    line.print('a\tbc');
    line.carriageReturn();
    line.cursorForward(2);
    line.print('X');
    expect(text()).toBe('a\tXc');
  });

  it('commits what is left of the cursor past the commit threshold', () => {
    const { line, committed, text } = newLine(8);
    line.print('0123456789');
    expect(committed).toEqual(['0123456789']);
    expect(line.length).toBe(0);
    line.print('abc');
    line.carriageReturn();
    line.print('X');
    expect(text()).toBe('0123456789Xbc');
  });

  it('commits only up to the cursor when a print in the middle lengthens the line', () => {
    const { line, committed, text } = newLine(8);
    line.print('abcdefgh');
    line.carriageReturn();
    // A pair over one column grows the line past the threshold with text right of the cursor.
    line.print('😀');
    expect(committed).toEqual(['😀']);
    line.carriageReturn();
    line.print('X');
    expect(text()).toBe('😀Xcdefgh');
  });

  it('defaults the commit threshold to LONG_LINE_COMMIT_CHARS', () => {
    const { line, committed } = newLine();
    line.print('x'.repeat(LONG_LINE_COMMIT_CHARS));
    expect(committed).toEqual([]);
    line.print('x');
    expect(committed).toEqual(['x'.repeat(LONG_LINE_COMMIT_CHARS + 1)]);
  });
});

describe('TerminalLine: cursor moves', () => {
  it('moves back by columns, over a surrogate pair as one, never below column 0', () => {
    const { line, text } = newLine();
    line.print('a😀b');
    line.cursorBack(2);
    line.print('X');
    line.cursorBack(9);
    line.print('Y');
    expect(text()).toBe('YXb');
  });

  it('moves back through blank columns first', () => {
    const { line, text } = newLine();
    line.print('ab');
    line.cursorForward(3);
    line.cursorBack(2);
    line.print('X');
    expect(text()).toBe('ab X');
  });

  it('opens blank columns past the end only when something is printed there', () => {
    const { line, text } = newLine();
    line.print('ab');
    line.cursorForward(3);
    expect(line.length).toBe(2);
    line.print('c');
    expect(text()).toBe('ab   c');
    const empty = newLine();
    empty.line.cursorForward(3);
    expect(empty.text()).toBe('');
  });

  it(`opens at most ${MAX_BLANK_COLUMNS} blank columns`, () => {
    const { line, text } = newLine();
    line.print('a');
    line.cursorForward(1_000_000);
    line.print('b');
    expect(text()).toBe(`a${' '.repeat(MAX_BLANK_COLUMNS)}b`);
  });

  it('moves to a column counted from 0 in code points', () => {
    const { line, text } = newLine();
    line.print('😀bcdef');
    line.cursorToColumn(2);
    line.print('X');
    line.cursorToColumn(0);
    line.print('Y');
    expect(text()).toBe('YbXdef');
    const short = newLine();
    short.line.cursorToColumn(4);
    short.line.print('X');
    expect(short.text()).toBe('    X');
  });
});

describe('TerminalLine: erasing', () => {
  it('erases from the cursor to the end (EL 0)', () => {
    const { line, text } = newLine();
    line.print('abcdef');
    line.cursorBack(3);
    line.eraseInLine(0);
    expect(text()).toBe('abc');
  });

  it('blanks from the start through the cursor, keeping what follows (EL 1)', () => {
    const { line, text } = newLine();
    line.print('a😀cdef');
    line.cursorToColumn(2);
    line.eraseInLine(1);
    line.print('X');
    expect(text()).toBe('  Xdef');
  });

  it('empties the line on EL 1 at its last column and on EL 2, keeping the cursor column', () => {
    const a = newLine();
    a.line.print('abc');
    a.line.cursorBack(1);
    a.line.eraseInLine(1);
    a.line.print('X');
    expect(a.text()).toBe('  X');
    const b = newLine();
    b.line.print('abc');
    b.line.eraseInLine(2);
    b.line.print('X');
    expect(b.text()).toBe('   X');
  });

  it('ignores unknown EL modes', () => {
    const { line, text } = newLine();
    line.print('abc');
    line.eraseInLine(3);
    expect(text()).toBe('abc');
  });

  it('blanks characters from the cursor without moving it (ECH)', () => {
    const { line, text } = newLine();
    line.print('a😀cdef');
    line.cursorToColumn(1);
    line.eraseChars(2);
    line.print('X');
    expect(text()).toBe('aX def');
  });

  it('drops erased characters at the end of the line, and erases nothing past it', () => {
    const a = newLine();
    a.line.print('abcdef');
    a.line.cursorBack(3);
    a.line.eraseChars(5);
    expect(a.text()).toBe('abc');
    const b = newLine();
    b.line.print('ab');
    b.line.cursorForward(2);
    b.line.eraseChars(3);
    expect(b.text()).toBe('ab');
  });
});
