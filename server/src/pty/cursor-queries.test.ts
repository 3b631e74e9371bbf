import { describe, expect, it } from 'vitest';
import { CursorQueryScanner, cursorReport } from './cursor-queries.ts';

describe('CursorQueryScanner', () => {
  it('counts each query once, including one split across chunks', () => {
    const scanner = new CursorQueryScanner();
    expect(scanner.push(Buffer.from('PS /> \x1b[6n'))).toBe(1);
    expect(scanner.push(Buffer.from('out\x1b'))).toBe(0);
    expect(scanner.push(Buffer.from('[6'))).toBe(0);
    expect(scanner.push(Buffer.from('n\x1b[6n tail'))).toBe(2);
    expect(scanner.push(Buffer.from('\x1b[6m not one'))).toBe(0);
  });

  it('answers as a terminal does, 1-based row then column', () => {
    expect(cursorReport(3, 10)).toBe('\x1b[3;10R');
  });
});
