import { describe, expect, it } from 'vitest';
import { HOLD_MAX_BYTES, STRING_MAX_BYTES, TerminalBounds } from './terminal-bounds.ts';

const SIZE = { cols: 120, rows: 40 };

function bytes(text: string): Uint8Array {
  // Latin-1: each character one byte, so tests can write any byte as \xNN.
  return Uint8Array.from(text, (ch) => ch.charCodeAt(0));
}

function text(data: Uint8Array): string {
  return String.fromCharCode(...data);
}

/** The bounds's output for `chunks` pushed one after another, joined. */
function through(chunks: readonly string[], size = SIZE): string {
  const bounds = new TerminalBounds(() => size);
  return chunks.map((chunk) => text(bounds.push(bytes(chunk)))).join('');
}

describe('TerminalBounds', () => {
  it('hands back a chunk with no sequence in it as it is', () => {
    const chunk = bytes('plain output\r\nno escapes, only text \xc3\xa9\r\n');
    expect(new TerminalBounds(() => SIZE).push(chunk)).toBe(chunk);
  });

  it('bounds line counts to the rows and column counts to the columns', () => {
    for (const final of ['S', 'T', 'L', 'M']) {
      expect(through([`a\x1b[2147483647${final}b`])).toBe(`a\x1b[40${final}b`);
    }
    for (const final of ['b', 'Z', 'I']) {
      expect(through([`a\x1b[99999999999${final}b`])).toBe(`a\x1b[120${final}b`);
    }
    expect(through(['\x1b[999S'], { cols: 80, rows: 24 })).toBe('\x1b[24S');
  });

  it('leaves counts within the bounds, and every other sequence, as they are', () => {
    const kept = [
      '\x1b[40S',
      '\x1b[5T\x1b[3L\x1b[M\x1b[b\x1b[Z\x1b[120I',
      '\x1b[38;2;255;255;255m\x1b[999999;999999H\x1b[2147483647m',
      '\x1b[?2147483647S', // a private marker: another sequence
      '\x1b[2147483647 S', // an intermediate: another sequence
      '\x1b[;2147483647S', // the count is the first parameter; this one is the default
      '\x1b]0;title \xc2\xa9 99999S\x07',
    ];
    for (const sequence of kept) expect(through([sequence])).toBe(sequence);
  });

  it('sees the U+009B introducer, sub-parameters and leading zeros as xterm.js does', () => {
    expect(through(['x\xc2\x9b99999S'])).toBe('x\xc2\x9b40S');
    expect(through(['\x1b[99999:1S'])).toBe('\x1b[40:1S');
    expect(through(['\x1b[0000000000099999S'])).toBe('\x1b[40S');
  });

  it('bounds a count whose digits are split by controls or by bytes xterm.js drops', () => {
    // C0 controls run inside a sequence without ending it; they keep their place.
    expect(through(['\x1b[30\r0000S'])).toBe('\x1b[40\rS');
    expect(through(['\x1b[30\x7f0000S'])).toBe('\x1b[40\x7fS');
    // Bytes that are not valid UTF-8 are dropped by xterm.js's decoder.
    expect(through(['\x1b[30\xff\x80\xe2\x820000S'])).toBe('\x1b[40\xff\x80\xe2\x82S');
    // And ESC itself can be followed by controls before its `[`.
    expect(through(['\x1b\r\x7f[99999S'])).toBe('\x1b\r\x7f[40S');
  });

  it('sees a sequence split across chunks at any byte', () => {
    const stream = 'ab\x1b[1999999999Scd\xc2\x9b7777777bef\x1b[12;34Hgh\x1b[3000000000Tij';
    const whole = through([stream]);
    expect(whole).toBe('ab\x1b[40Scd\xc2\x9b120bef\x1b[12;34Hgh\x1b[40Tij');
    for (let cut = 0; cut <= stream.length; cut++) {
      expect(through([stream.slice(0, cut), stream.slice(cut)])).toBe(whole);
    }
    expect(through([...stream])).toBe(whole);
  });

  it('lets an unfinished sequence out as it was when ESC, CAN or SUB ends it', () => {
    expect(through(['\x1b[99999\x1b[3S'])).toBe('\x1b[99999\x1b[3S');
    expect(through(['\x1b[99999\x18S'])).toBe('\x1b[99999\x18S');
    expect(through(['\x1b[99999\x1aS'])).toBe('\x1b[99999\x1aS');
    expect(through(['\x1b[99999\xc2\x9b5S'])).toBe('\x1b[99999\xc2\x9b5S');
  });

  it('holds at most HOLD_MAX_BYTES of a sequence, and bounds its count all the same', () => {
    const zeros = '0'.repeat(HOLD_MAX_BYTES * 2);
    const out = through([`\x1b[${zeros}99999999S`]);
    const count = /^\x1b\[(\d*)S$/.exec(out)?.[1];
    expect(count).toBeDefined();
    expect(Number(count)).toBeLessThanOrEqual(SIZE.rows);
    // Past the bound, parameters after the first go through untouched.
    const params = ';7'.repeat(HOLD_MAX_BYTES);
    expect(through([`\x1b[9${params}S`])).toBe(`\x1b[9${params}S`);
    expect(through([`\x1b[99999${params}S`])).toBe(`\x1b[40${params}S`);
  });

  it('passes OSC and DCS strings up to STRING_MAX_BYTES as they are', () => {
    // Counted from the byte after ESC ]: `0;` and the title.
    const title = `\x1b]0;${'t'.repeat(STRING_MAX_BYTES - 2)}\x07after`;
    expect(through([title])).toBe(title);
    const status = `\x1bP$q${'m'.repeat(100)}\x1b\\after`;
    expect(through([status])).toBe(status);
    const c1 = `\xc2\x9d8;;http://x/\xc2\x9cafter`;
    expect(through([c1])).toBe(c1);
  });

  it('cancels a longer string with CAN and drops the rest of it up to its end', () => {
    const cap = STRING_MAX_BYTES;
    const kept = 'a'.repeat(cap - 2);
    const long = `x\x1b]0;${kept}${'b\xc2\xa9'.repeat(5000)}\x07after`;
    // Counted from `0;`, the bytes after ESC ].
    expect(through([long])).toBe(`x\x1b]0;${kept}\x18after`);
    // Ended by ESC: that goes on as ever (here ST, then a CSI that is still seen).
    expect(through([`\x1b]0;${'c'.repeat(cap * 2)}\x1b\\\x1b[99999Sz`])).toBe(
      `\x1b]0;${'c'.repeat(cap - 2)}\x18\x1b\\\x1b[40Sz`,
    );
    // Ended by a C1 control: its C2 goes back in front of it.
    expect(through([`\x1bP${'d'.repeat(cap + 5)}\xc2\x9cz`])).toBe(
      `\x1bP${'d'.repeat(cap)}\x18\xc2\x9cz`,
    );
    // BEL ends an OSC, not a DCS.
    expect(through([`\x1bP${'e'.repeat(cap + 5)}\x07\x07e\x1b\\z`])).toBe(
      `\x1bP${'e'.repeat(cap)}\x18\x1b\\z`,
    );
  });

  it('counts a string across chunks, and cancels it the same at any cut', () => {
    const stream = `a\x1b]2;${'f'.repeat(STRING_MAX_BYTES + 50)}\xc2\x9cb\x1b[123Sc`;
    const whole = through([stream]);
    expect(whole).toBe(`a\x1b]2;${'f'.repeat(STRING_MAX_BYTES - 2)}\x18\xc2\x9cb\x1b[40Sc`);
    for (const cut of [1, 3, 5, 100, STRING_MAX_BYTES, STRING_MAX_BYTES + 5, stream.length - 12]) {
      expect(through([stream.slice(0, cut), stream.slice(cut)]), `cut ${cut}`).toBe(whole);
    }
    // Cut between the C2 and the C1 control that ends the string.
    const at = stream.indexOf('\xc2\x9c') + 1;
    expect(through([stream.slice(0, at), stream.slice(at)])).toBe(whole);
  });

  it('starts over after reset, with nothing held', () => {
    const bounds = new TerminalBounds(() => SIZE);
    expect(text(bounds.push(bytes('\x1b[9999')))).toBe('\x1b[');
    bounds.reset();
    expect(text(bounds.push(bytes('99S')))).toBe('99S');
  });

  it('bounds to the size at the time the bytes come', () => {
    let size = { cols: 120, rows: 40 };
    const bounds = new TerminalBounds(() => size);
    expect(text(bounds.push(bytes('\x1b[500S')))).toBe('\x1b[40S');
    size = { cols: 200, rows: 100 };
    expect(text(bounds.push(bytes('\x1b[500S')))).toBe('\x1b[100S');
  });
});
