import { describe, expect, it } from 'vitest';
import { OutputCursor } from './output-cursor.ts';

// ASCII only: shared/ has neither DOM nor Node types, so no TextEncoder here.
const bytes = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0));
const text = (data: Uint8Array) => String.fromCharCode(...data);

describe('OutputCursor', () => {
  it('writes a frame that starts at the position and moves to its end', () => {
    const cursor = new OutputCursor();
    cursor.moveTo(10);
    const verdict = cursor.accept({ offset: 10, data: bytes('hello') });
    expect(verdict.kind === 'write' && text(verdict.data)).toBe('hello');
    expect(cursor.position).toBe(15);
  });

  it('trims the bytes of a frame already shown (resume overlap)', () => {
    const cursor = new OutputCursor();
    cursor.moveTo(13);
    const verdict = cursor.accept({ offset: 10, data: bytes('hello') });
    expect(verdict.kind === 'write' && text(verdict.data)).toBe('lo');
    expect(cursor.position).toBe(15);
  });

  it('drops a frame that ends at or before the position', () => {
    const cursor = new OutputCursor();
    cursor.moveTo(15);
    expect(cursor.accept({ offset: 10, data: bytes('hello') })).toEqual({ kind: 'duplicate' });
    expect(cursor.position).toBe(15);
  });

  it('reports a gap instead of writing past missing bytes', () => {
    const cursor = new OutputCursor();
    cursor.moveTo(10);
    expect(cursor.accept({ offset: 12, data: bytes('xy') })).toEqual({ kind: 'gap', missing: 2 });
    expect(cursor.position).toBe(10);
  });

  it('reports a gap before the stream position is known', () => {
    const cursor = new OutputCursor();
    expect(cursor.accept({ offset: 0, data: bytes('x') }).kind).toBe('gap');
  });
});
