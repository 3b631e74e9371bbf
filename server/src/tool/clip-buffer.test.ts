import { describe, expect, it } from 'vitest';
import { ClipBuffer, cutAtCodePoint, tailAtCodePoint } from './clip-buffer.ts';

describe('cutAtCodePoint and tailAtCodePoint', () => {
  it('cuts the start one earlier rather than split a pair', () => {
    expect(cutAtCodePoint('ab😀', 3)).toBe('ab');
    expect(cutAtCodePoint('ab😀', 4)).toBe('ab😀');
    expect(cutAtCodePoint('ab', 0)).toBe('');
  });

  it('cuts the end one later rather than split a pair', () => {
    expect(tailAtCodePoint('😀ab', 3)).toBe('ab');
    expect(tailAtCodePoint('😀ab', 4)).toBe('😀ab');
    expect(tailAtCodePoint('abc', 5)).toBe('abc');
    expect(tailAtCodePoint('abc', 0)).toBe('');
  });

  it('drops a low surrogate that begins a tail kept from inside a pair', () => {
    expect(tailAtCodePoint('\ude00ab', 3)).toBe('ab');
  });
});

describe('ClipBuffer', () => {
  it('gives the same result for lines appended whole or through the fast path', async () => {
    for (const clip of ['head', 'head-tail'] as const) {
      const slow = new ClipBuffer({ maxOutputChars: 7, clip, spill: null });
      const fast = new ClipBuffer({ maxOutputChars: 7, clip, spill: null });
      for (let i = 0; i < 50; i++) {
        slow.append(`line ${i}\n`);
        fast.appendLines(`line ${i}\r\n`);
      }
      expect(await fast.finish(false)).toEqual(await slow.finish(false));
    }
  });

  it('holds at most the head and twice the tail it keeps', () => {
    const buffer = new ClipBuffer({ maxOutputChars: 100, clip: 'head-tail', spill: null });
    for (let i = 0; i < 10_000; i++) buffer.append('0123456789\n');
    expect(buffer.retainedChars).toBeLessThanOrEqual(102 + 2 * 51);
    const head = new ClipBuffer({ maxOutputChars: 100, clip: 'head', spill: null });
    for (let i = 0; i < 10_000; i++) head.append('0123456789\n');
    expect(head.retainedChars).toBe(102);
  });
});
