import { describe, expect, it } from 'vitest';
import { keyBytes } from './keys.ts';

describe('keyBytes', () => {
  it('sends what xterm.js sends for named keys', () => {
    expect(keyBytes('Enter', false)).toBe('\r');
    expect(keyBytes('Escape', false)).toBe('\x1b');
    expect(keyBytes('Backspace', false)).toBe('\x7f');
    expect(keyBytes('PageDown', false)).toBe('\x1b[6~');
    expect(keyBytes('F5', false)).toBe('\x1b[15~');
  });

  it('follows the application cursor mode for arrows, Home and End', () => {
    expect(keyBytes('ArrowUp', false)).toBe('\x1b[A');
    expect(keyBytes('ArrowUp', true)).toBe('\x1bOA');
    expect(keyBytes('End', true)).toBe('\x1bOF');
  });

  it('sends one character as itself, Control+letter as its C0 code, Alt+ after ESC', () => {
    expect(keyBytes('q', false)).toBe('q');
    expect(keyBytes('é', false)).toBe('é');
    expect(keyBytes('Control+C', false)).toBe('\x03');
    expect(keyBytes('Control+d', false)).toBe('\x04');
    expect(keyBytes('Alt+f', false)).toBe('\x1bf');
    expect(keyBytes('Control+Alt+X', false)).toBe('\x1b\x18');
    expect(keyBytes('+', false)).toBe('+');
    expect(keyBytes('Alt++', false)).toBe('\x1b+');
  });

  it('refuses what is not a key, naming the keys it knows', () => {
    expect(() => keyBytes('Hello', false)).toThrow(
      /^unknown key "Hello": give one character, or one of Enter, Tab, .*for text, use shell\.type\(\)\)$/,
    );
    expect(() => keyBytes('Shift+A', false)).toThrow('unknown key "Shift+A"');
    expect(() => keyBytes('Control+1', false)).toThrow('unknown key "Control+1"');
  });
});
