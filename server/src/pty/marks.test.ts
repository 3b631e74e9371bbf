/**
 * The mark scanner on its own: a mark is found wherever the PTY's reads cut it, and the
 * bytes around it come out whole and in order, never a byte twice.
 */
import { describe, expect, it } from 'vitest';
import { type Mark, MarkScanner, markText } from './marks.ts';

const NONCE = '0123456789ABCDEF';

/** What the scanner gives for `chunks`, with the data pieces joined between marks. */
function scan(chunks: readonly Buffer[]): (string | Mark)[] {
  const scanner = new MarkScanner(NONCE);
  const out: (string | Mark)[] = [];
  const add = (data: Buffer) => {
    const last = out[out.length - 1];
    if (typeof last === 'string') out[out.length - 1] = last + data.toString('latin1');
    else out.push(data.toString('latin1'));
  };
  for (const chunk of chunks) {
    for (const piece of scanner.push(chunk)) {
      if ('mark' in piece) out.push(piece.mark);
      else add(piece.data);
    }
  }
  const rest = scanner.flush();
  if (rest.length > 0) add(rest);
  return out;
}

describe('MarkScanner', () => {
  const stream = Buffer.from(
    `before\x1b[31m${markText(NONCE, 'E', '0;5')}\x1b]7717\x1b]0;title\x07${markText(NONCE, 'P')}after\x1b`,
    'latin1',
  );
  const expected = [
    'before\x1b[31m',
    { event: 'E', data: '0;5' },
    '\x1b]7717\x1b]0;title\x07',
    { event: 'P', data: '' },
    'after\x1b',
  ];

  it('finds marks and passes the rest on, in order', () => {
    expect(scan([stream])).toEqual(expected);
  });

  it('gives the same pieces however two reads cut the stream', () => {
    for (let at = 0; at <= stream.length; at++) {
      expect(scan([stream.subarray(0, at), stream.subarray(at)]), `cut at ${at}`).toEqual(expected);
    }
  });

  it('gives the same pieces when every byte is a read of its own', () => {
    expect(scan(Array.from(stream, (byte) => Buffer.from([byte])))).toEqual(expected);
  });

  it('holds back only what may begin a mark', () => {
    const scanner = new MarkScanner(NONCE);
    const held = (chunk: string) =>
      chunk.length -
      scanner
        .push(Buffer.from(chunk, 'latin1'))
        .reduce((n, p) => n + ('data' in p ? p.data.length : 0), 0);
    expect(held('plain text, no escape')).toBe(0);
    expect(held('x\x1b]77')).toBe(4);
    expect(scanner.flush().toString('latin1')).toBe('\x1b]77');
    expect(held('x\x1b[1mtext')).toBe(0);
    expect(held('ends in an ESC \x1b')).toBe(1);
  });

  describe('a control string the output left open', () => {
    const ST = '\x1b\\';
    const open = Buffer.from(
      `title\x1b]0;left open${markText(NONCE, 'P')}shown${markText(NONCE, 'E', '0;1')}`,
      'latin1',
    );
    const closedWhereTheMarkWas = [
      `title\x1b]0;left open${ST}`,
      { event: 'P', data: '' },
      'shown',
      { event: 'E', data: '0;1' },
    ];

    it('is ended with ST where a mark is taken out, and only the once', () => {
      expect(scan([open])).toEqual(closedWhereTheMarkWas);
    });

    it('is ended the same however the reads cut the stream', () => {
      for (let at = 0; at <= open.length; at++) {
        expect(scan([open.subarray(0, at), open.subarray(at)]), `cut at ${at}`).toEqual(
          closedWhereTheMarkWas,
        );
      }
      expect(scan(Array.from(open, (byte) => Buffer.from([byte])))).toEqual(closedWhereTheMarkWas);
    });

    it('is ended where a mark of another nonce is dropped', () => {
      const other = markText('FEDCBA9876543210', 'P');
      expect(scan([Buffer.from(`\x1bPq${other}after`, 'latin1')])).toEqual([`\x1bPq${ST}after`]);
    });

    it('is ended after a mark of another nonce cut short by a real one', () => {
      const cut = '\x1b]7717;FEDCBA9876543210;H;0;1';
      expect(scan([Buffer.from(`${cut}${markText(NONCE, 'P')}prompt`, 'latin1')])).toEqual([
        `${cut}${ST}`,
        { event: 'P', data: '' },
        'prompt',
      ]);
    });
  });

  describe('a mark of ours cut short (a Ctrl-C flushed its tail)', () => {
    // Dropped, nonce and all: a viewer or a recording never learns the nonce from it.
    for (const cut of [
      `\x1b]7717;${NONCE};H;0;1`,
      `\x1b]7717;${NONCE.slice(0, 7)}`,
      '\x1b]7717;',
    ]) {
      it(`drops ${JSON.stringify(cut)} before the next mark`, () => {
        const stream = Buffer.from(`a${cut}${markText(NONCE, 'P')}prompt`, 'latin1');
        const expected = ['a', { event: 'P', data: '' }, 'prompt'];
        expect(scan([stream])).toEqual(expected);
        for (let at = 0; at <= stream.length; at++) {
          expect(scan([stream.subarray(0, at), stream.subarray(at)]), `cut at ${at}`).toEqual(
            expected,
          );
        }
      });
    }

    it('drops it before output longer than a mark, and passes that on', () => {
      // (Upper case and digits within a mark's length of its start would go with it.)
      const text = 'y'.repeat(300);
      expect(scan([Buffer.from(`\x1b]7717;${NONCE};H;0${text}`, 'latin1')])).toEqual([text]);
    });

    it('adds nothing where no string is open', () => {
      for (const text of ['\x1b]0;t\x07', '\x1b]0;t\x1b\\', '\x1b[31m', 'caf\xc3\xa9 \xc2\xb0']) {
        expect(scan([Buffer.from(`${text}${markText(NONCE, 'P')}`, 'latin1')])).toEqual([
          text,
          { event: 'P', data: '' },
        ]);
      }
    });
  });
});
