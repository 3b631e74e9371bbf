import { describe, expect, it } from 'vitest';
import { displayWidth, padToWidth } from './display-width.ts';

describe('displayWidth', () => {
  it('counts one column per narrow character, grapheme by grapheme', () => {
    expect(displayWidth('cli-list')).toBe(8);
    expect(displayWidth('é')).toBe(1); // e + combining acute
    expect(displayWidth('Zoë')).toBe(3);
  });

  it('counts two columns for CJK, Hangul, fullwidth forms and emoji', () => {
    expect(displayWidth('山田太郎')).toBe(8);
    expect(displayWidth('한국어')).toBe(6);
    expect(displayWidth('ＡＢ')).toBe(4);
    expect(displayWidth('カタカナ-a')).toBe(10);
    expect(displayWidth('🚀')).toBe(2);
    expect(displayWidth('👩‍💻')).toBe(2); // one grapheme joined by ZWJ
    expect(displayWidth('❤️')).toBe(2); // text heart with the emoji selector
  });

  it('pads to a width in columns, not characters', () => {
    expect(padToWidth('山田', 6)).toBe('山田  ');
    expect(padToWidth('ab', 6)).toBe('ab    ');
    expect(padToWidth('toolong', 3)).toBe('toolong');
  });
});
