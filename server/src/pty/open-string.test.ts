/**
 * The open-string watch on its own: which output leaves a terminal inside a control string,
 * wherever the reads cut it.
 */
import { describe, expect, it } from 'vitest';
import { OpenStringWatch } from './open-string.ts';

/** Whether `text` (latin1 bytes) leaves a string open, seen whole and cut at every byte. */
function openAfter(text: string): boolean {
  const bytes = Buffer.from(text, 'latin1');
  const whole = new OpenStringWatch();
  whole.see(bytes);
  for (let at = 0; at <= bytes.length; at++) {
    const cut = new OpenStringWatch();
    cut.see(bytes.subarray(0, at));
    cut.see(bytes.subarray(at));
    expect(cut.open, `${JSON.stringify(text)} cut at ${at}`).toBe(whole.open);
  }
  return whole.open;
}

describe('OpenStringWatch', () => {
  const rows: [string, boolean][] = [
    ['plain text', false],
    ['\x1b]0;title', true],
    ['\x1b]0;title\x07', false],
    ['\x1b]0;title\x1b\\', false],
    ['\x1bPq data', true],
    ['\x1b_apc', true],
    ['\x1b^pm', true],
    ['\x1bXsos', true],
    ['\x1b]0;t\x18', false],
    ['\x1b]0;t\x1a', false],
    ['\x1b]0;t\x1b[31m', false],
    ['\xc2\x9d0;title', true],
    ['\xc2\x9d0;title\xc2\x9c', false],
    ['\xc2\x90q', true],
    ['\x1b]0;caf\xc3\xa9 \xc2\xb0 \xc2\xb1', true],
    ['caf\xc3\xa9 \xc2\xb0', false],
    ['\x1b[31mred\x1b[0m', false],
  ];
  for (const [text, open] of rows) {
    it(`${JSON.stringify(text)} leaves a string ${open ? 'open' : 'closed'}`, () => {
      expect(openAfter(text)).toBe(open);
    });
  }

  it('keeps what the chunks before said when a chunk holds nothing that matters', () => {
    const watch = new OpenStringWatch();
    watch.see(Buffer.from('\x1b]0;', 'latin1'));
    watch.see(Buffer.from('more of the title', 'latin1'));
    expect(watch.open).toBe(true);
    watch.see(Buffer.from('\x07', 'latin1'));
    watch.see(Buffer.from('text', 'latin1'));
    expect(watch.open).toBe(false);
  });
});
