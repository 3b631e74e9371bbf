import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cutAtCodePoint,
  LONG_LINE_COMMIT_CHARS,
  type OutputClipMode,
  OutputRenderer,
  type RenderedOutput,
  type SpillTarget,
  type SpillWriter,
} from './output-renderer.ts';

const encoder = new TextEncoder();
const BIG = 1_000_000;

function bytesOf(input: string | Uint8Array): Uint8Array {
  return typeof input === 'string' ? encoder.encode(input) : input;
}

async function renderChunks(
  chunks: (string | Uint8Array)[],
  maxOutputChars = BIG,
  spill: SpillTarget | null = null,
): Promise<RenderedOutput> {
  const renderer = new OutputRenderer({ maxOutputChars, spill });
  for (const chunk of chunks) renderer.push(bytesOf(chunk));
  return renderer.finish();
}

async function render(input: string | Uint8Array, maxOutputChars = BIG): Promise<string> {
  return (await renderChunks([input], maxOutputChars)).text;
}

interface MemoryFile {
  path: string;
  text: string;
  state: 'open' | 'finished' | 'discarded';
}

/** A SpillTarget in memory, recording what happened to each file. */
class MemorySpill implements SpillTarget {
  readonly files: MemoryFile[] = [];
  open(): SpillWriter {
    const file: MemoryFile = { path: `/spill/${this.files.length}.txt`, text: '', state: 'open' };
    this.files.push(file);
    return {
      path: file.path,
      write: (text) => {
        file.text += text;
      },
      finish: async () => {
        file.state = 'finished';
      },
      discard: async () => {
        file.state = 'discarded';
      },
    };
  }
}

describe('OutputRenderer: lines', () => {
  it('removes exactly one trailing newline', async () => {
    expect(await render('abc\r\n')).toBe('abc');
    expect(await render('a\r\nb\r\n')).toBe('a\nb');
    expect(await render('a\r\n\r\n')).toBe('a\n');
    expect(await render('abc')).toBe('abc');
    expect(await render('')).toBe('');
  });

  it('ends a line on a bare LF too', async () => {
    expect(await render('a\nb\n')).toBe('a\nb');
  });

  it('overwrites from column 0 after CR', async () => {
    expect(await render('abc\rX')).toBe('Xbc');
    expect(await render('\r10%\r20%\r100%\r\n')).toBe('100%');
    expect(await render('done 100%\rok')).toBe('okne 100%');
  });

  it('moves left on BS, never below column 0', async () => {
    expect(await render('abc\b\bX')).toBe('aXc');
    expect(await render('\b\bX')).toBe('X');
    expect(await render('a😀\bX')).toBe('aX');
  });

  it('keeps TAB as one column', async () => {
    expect(await render('a\tb')).toBe('a\tb');
    expect(await render('abc\r\tX')).toBe('\tXc');
  });

  it('drops BEL, other C0 controls, DEL and C1 controls', async () => {
    expect(await render('a\x07b\x00c\x7fd\x0ce\x0bf\x01g')).toBe('abcdefg');
    expect(await render('a\u0085b\u009cc\u0080d')).toBe('abcd');
  });

  it('hides 8-bit control strings as the screens do (OSC, DCS, SOS, PM, APC)', async () => {
    expect(await render('a\u009d0;title\u0007b')).toBe('ab');
    expect(await render('a\u009d0;title\u009cb')).toBe('ab');
    expect(await render('a\u009d0;title\x1b\\b')).toBe('ab');
    for (const introducer of ['\u0090', '\u0098', '\u009e', '\u009f']) {
      expect(await render(`a${introducer}q\u0007still\u009cb`)).toBe('ab');
    }
    // Cut anywhere, as chunks of the stream.
    expect(await renderChunks(['a\u009d0;ti', 'tle\u0007', 'b']).then((r) => r.text)).toBe('ab');
    // CAN ends one too, as it ends any sequence.
    expect(await render('a\u009fapc\u0018b')).toBe('ab');
  });

  it('keeps a long line as one line', async () => {
    const line = 'x'.repeat(100_000);
    expect(await render(`${line}\r\n`)).toBe(line);
  });

  it('commits a line past LONG_LINE_COMMIT_CHARS so a later CR redraws only the rest', async () => {
    const long = 'x'.repeat(LONG_LINE_COMMIT_CHARS + 10);
    expect(await render(`${long}\rY`, 2 * LONG_LINE_COMMIT_CHARS)).toBe(`${long}Y`);
  });

  it('keeps a byte order mark at the start', async () => {
    expect(await render('\ufeffa')).toBe('\ufeffa');
  });
});

describe('OutputRenderer: control sequences', () => {
  it('removes SGR colours and other CSI sequences', async () => {
    expect(await render('\x1b[1;31mred\x1b[0m \x1b[?25lplain\x1b[?25h\x1b[2J\x1b[H')).toBe(
      'red plain',
    );
  });

  it('treats U+009B as CSI', async () => {
    expect(await render('a\u009b31mb')).toBe('ab');
  });

  it('removes OSC ended by BEL or ST', async () => {
    expect(await render('\x1b]0;title\x07a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\')).toBe('alink');
  });

  it('removes DCS, SOS, PM and APC up to ST only', async () => {
    expect(await render('\x1bPq#0;2\x07still\x1b\\a\x1bXs\x1b\\b\x1b^p\x1b\\c\x1b_g\x1b\\d')).toBe(
      'abcd',
    );
  });

  it('removes two- and three-byte ESC forms', async () => {
    expect(await render('\x1b(Ba\x1b=b\x1b7c\x1b8\x1b#8d\x1b)0e')).toBe('abcde');
  });

  it('abandons a sequence on CAN or SUB, and restarts it on ESC', async () => {
    expect(await render('\x1b[12\x18x\x1b[3\x1ay')).toBe('xy');
    expect(await render('\x1b[1\x1b[31mz')).toBe('z');
    expect(await render('\x1b]0;t\x1b[31mz')).toBe('z');
  });

  it('erases in line (EL 0, 1, 2)', async () => {
    expect(await render('abcdef\x1b[3D\x1b[K')).toBe('abc');
    expect(await render('abcdef\x1b[3D\x1b[0K')).toBe('abc');
    expect(await render('abcdef\x1b[3D\x1b[1K')).toBe('    ef');
    expect(await render('abc\x1b[2Kx')).toBe('   x');
    expect(await render('\r\x1b[2K50%\r\x1b[2K100%\r\n')).toBe('100%');
    expect(await render('downloading 100%\r\x1b[Kdone')).toBe('done');
  });

  it('moves to an absolute column (G and `)', async () => {
    expect(await render('abcdef\x1b[3GX')).toBe('abXdef');
    expect(await render('abcdef\x1b[3`X')).toBe('abXdef');
    expect(await render('\x1b[5GX')).toBe('    X');
    expect(await render('abc\x1b[GX')).toBe('Xbc');
  });

  it('moves forward and back (C and D)', async () => {
    expect(await render('ab\x1b[2Cc')).toBe('ab  c');
    expect(await render('abcdef\r\x1b[2CX')).toBe('abXdef');
    expect(await render('abcdef\x1b[DX')).toBe('abcdeX');
    expect(await render('ab\x1b[9DX')).toBe('Xb');
  });

  it('erases characters (X) within the line', async () => {
    expect(await render('abcdef\r\x1b[2X')).toBe('  cdef');
    expect(await render('abcdef\x1b[3D\x1b[5X')).toBe('abc');
  });

  it('does not output what is written on the alternate screen', async () => {
    for (const mode of ['1049', '1047', '47']) {
      expect(
        await render(`before\r\n\x1b[?${mode}hscreen\r\nmore\x1b[2K\x1b[?${mode}lafter\r\n`),
      ).toBe('before\nafter');
    }
  });

  it('keeps the main line across the alternate screen', async () => {
    expect(await render('>>> \x1b[?1049hx\r\ny\r\x1b[K\x1b[?1049lok')).toBe('>>> ok');
  });

  it('reports whether the alternate screen is active', () => {
    const renderer = new OutputRenderer({ maxOutputChars: BIG, spill: null });
    expect(renderer.altScreen).toBe(false);
    renderer.push(encoder.encode('\x1b[?1049h'));
    expect(renderer.altScreen).toBe(true);
    renderer.push(encoder.encode('\x1b[?1049l'));
    expect(renderer.altScreen).toBe(false);
  });
});

describe('OutputRenderer: decoding and chunk splits', () => {
  it('turns invalid UTF-8 into U+FFFD', async () => {
    expect(await render(new Uint8Array([0x61, 0xff, 0x62]))).toBe('a\ufffdb');
    expect(await render(new Uint8Array([0x61, 0xe2, 0x82]))).toBe('a\ufffd');
    expect(await render(new Uint8Array([0xc3, 0x28]))).toBe('\ufffd(');
  });

  it('joins UTF-8 sequences split across chunks', async () => {
    const euro = encoder.encode('€😀');
    const chunks = Array.from(euro, (b) => new Uint8Array([b]));
    expect((await renderChunks(chunks)).text).toBe('€😀');
  });

  const sample =
    'héllo \x1b[1;31mwörld\x1b[0m\r\n' +
    '\x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ 😀\t€\r\n' +
    '\r10%\r\x1b[K20%\r\x1b[2K100%\r\n' +
    'abc\b\bX\x1b[3GY\x1bPdcs\x1b\\\x1b(B\x1b=\u009b1mq\u0085\r\n' +
    '\x1b[?1049halt\r\nscreen\x1b[?1049lback\xff\r\n';

  it('gives the same text whatever the split point', async () => {
    const bytes = encoder.encode(sample);
    const whole = (await renderChunks([bytes])).text;
    expect(whole).toBe('héllo wörld\nlink 😀\t€\n100%\naXYq\nbackÿ');
    for (let i = 0; i <= bytes.length; i++) {
      const split = await renderChunks([bytes.subarray(0, i), bytes.subarray(i)]);
      expect(split.text, `split at ${i}`).toBe(whole);
    }
    const single = await renderChunks(Array.from(bytes, (b) => new Uint8Array([b])));
    expect(single.text).toBe(whole);
  });

  it('gives the same text for any split of mixed text and control sequences (property)', async () => {
    const token = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('é', '😀', '\t', '\r', '\n', '\r\n', '\b', '\x07', '\x1b', '\x9b', '\x18'),
      fc.constantFrom('\x1b[31m', '\x1b[K', '\x1b[1K', '\x1b[2K', '\x1b[3G', '\x1b[2C', '\x1b[2D'),
      fc.constantFrom('\x1b[2X', '\x1b]0;t\x07', '\x1b]8;;u\x1b\\', '\x1bPq\x1b\\', '\x1b(B'),
      fc.constantFrom('\x1b[?1049h', '\x1b[?1049l', '\x1b[?47h', '\x1b[?47l'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(token, { maxLength: 30 }), fc.nat(), async (tokens, cut) => {
        const bytes = encoder.encode(tokens.join(''));
        const at = cut % (bytes.length + 1);
        const whole = await renderChunks([bytes]);
        const split = await renderChunks([bytes.subarray(0, at), bytes.subarray(at)]);
        expect(split).toEqual(whole);
        const clipped = await renderChunks([bytes.subarray(0, at), bytes.subarray(at)], 7);
        expect(clipped.totalChars).toBe(whole.totalChars);
        expect(clipped.text).toBe(cutAtCodePoint(whole.text, 7));
      }),
      { numRuns: 1000 },
    );
  });

  it('renders plain lines split anywhere as the general path renders them whole (property)', async () => {
    // A chunk of plain ASCII lines takes the fast path (plain-lines.ts); one that begins with
    // an SGR reset, which changes no text, takes the general one. Both must agree, spill too.
    const token = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.string({ unit: fc.constantFrom('a', 'Z', '7', ' ', '~'), maxLength: 9 }),
      },
      { weight: 4, arbitrary: fc.constantFrom('\r\n', '\n', '\t', '\r') },
      { weight: 1, arbitrary: fc.constantFrom('é', '😀', '\x1b[K', '\x1b[31m', '\x7f', '\x00') },
    );
    const options = fc.constantFrom<[number, OutputClipMode]>(
      [BIG, 'head'],
      [11, 'head'],
      [11, 'head-tail'],
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(token, { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        options,
        async (tokens, cuts, [max, clip]) => {
          const bytes = encoder.encode(tokens.join(''));
          const general = new MemorySpill();
          const whole = new OutputRenderer({ maxOutputChars: max, spill: general, clip });
          whole.push(encoder.encode(`\x1b[m${tokens.join('')}`));
          const fast = new MemorySpill();
          const split = new OutputRenderer({ maxOutputChars: max, spill: fast, clip });
          let from = 0;
          for (const p of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort(
            (a, b) => a - b,
          )) {
            split.push(bytes.subarray(from, p));
            from = p;
          }
          split.push(bytes.subarray(from));
          expect(await split.finish()).toEqual(await whole.finish());
          expect(fast.files.map((f) => f.text)).toEqual(general.files.map((f) => f.text));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('keeps a CR that ends a chunk, and a character split before plain lines, for the general path', async () => {
    expect((await renderChunks(['ab\r', '\ncd\r\n'])).text).toBe('ab\ncd');
    expect((await renderChunks(['abc\r', 'X\r\n'])).text).toBe('Xbc');
    expect((await renderChunks([new Uint8Array([0x61, 0xc3]), 'x\r\n'])).text).toBe('a\ufffdx');
    expect(
      (await renderChunks([new Uint8Array([0x61, 0xc3]), new Uint8Array([0xa9]), 'x\r\n'])).text,
    ).toBe('aéx');
    expect((await renderChunks(['\x1b[', '31mred\r\n'])).text).toBe('red');
    // Plain lines, then in the same chunk what only the general path reads.
    expect((await renderChunks(['done\r\n\x1b[31mred\x1b[0m\r\n'])).text).toBe('done\nred');
    expect((await renderChunks(['a\r\nb\xe9\r\n', '50%\r100%\r\n'])).text).toBe('a\nbé\n100%');
    expect(
      (await renderChunks(['\x1b[?1049h', 'hidden\r\n', '\x1b[?1049l', 'shown\r\n'])).text,
    ).toBe('shown');
  });

  it('renders printable text with CR LF line ends back to the text (property)', async () => {
    const printable = fc
      .integer({ min: 0x20, max: 0x10ffff })
      .filter((cp) => !(cp >= 0x7f && cp <= 0x9f) && !(cp >= 0xd800 && cp <= 0xdfff))
      .map((cp) => String.fromCodePoint(cp));
    const unit = fc.oneof(printable, fc.constantFrom('\n', '\t'));
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit, maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (s, cuts) => {
          const bytes = encoder.encode(s.replaceAll('\n', '\r\n'));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort(
            (a, b) => a - b,
          );
          const chunks: Uint8Array[] = [];
          let from = 0;
          for (const p of points) {
            chunks.push(bytes.subarray(from, p));
            from = p;
          }
          chunks.push(bytes.subarray(from));
          const expected = s.endsWith('\n') ? s.slice(0, -1) : s;
          expect((await renderChunks(chunks)).text).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('OutputRenderer: head, clipping and spill', () => {
  it('clips to maxOutputChars and says so', async () => {
    const out = await renderChunks(['abcdefgh\r\n'], 5);
    expect(out).toEqual({
      text: 'abcde',
      clipped: true,
      totalChars: 8,
      spillPath: null,
      lostPrefix: false,
      omittedChars: 0,
      tailStart: null,
    });
  });

  it('does not clip output exactly maxOutputChars long plus a trailing newline', async () => {
    const out = await renderChunks(['abcde\r\n'], 5);
    expect(out.text).toBe('abcde');
    expect(out.clipped).toBe(false);
    const longer = await renderChunks(['abcdef'], 5);
    expect(longer.clipped).toBe(true);
  });

  it('never splits a surrogate pair when clipping', async () => {
    const out = await renderChunks(['a😀b'], 2);
    expect(out.text).toBe('a');
    expect(out.clipped).toBe(true);
    expect(cutAtCodePoint('ab😀', 3)).toBe('ab');
    expect(cutAtCodePoint('ab😀', 4)).toBe('ab😀');
  });

  it('keeps the head of very long output', async () => {
    const renderer = new OutputRenderer({ maxOutputChars: 16_000, spill: null });
    const chunk = encoder.encode('y\r\n'.repeat(65_536));
    for (let i = 0; i < 100; i++) renderer.push(chunk);
    const out = await renderer.finish();
    expect(out.text).toBe('y\n'.repeat(8_000));
    expect(out.clipped).toBe(true);
    expect(out.totalChars).toBe(2 * 65_536 * 100 - 1);
  });

  it('counts the whole output once the head is full and there is no spill', async () => {
    const sample = '\x1b[1mbold\x1b[0m\tx\r\n\r50%\r100%\r\nplain\r\nlines\r\n';
    const many = sample.repeat(5000);
    const full = await renderChunks([many]);
    const clipped = await renderChunks([many], 50);
    expect(clipped.totalChars).toBe(full.totalChars);
    expect(clipped.text).toBe(full.text.slice(0, 50));
  });

  it('streams the whole output to the spill and reports its path when clipped', async () => {
    const spill = new MemorySpill();
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}\r\n`).join('');
    const out = await renderChunks(['\x1b[32m', lines, 'tail'], 100, spill);
    const whole = `${lines.replaceAll('\r\n', '\n')}tail`;
    expect(out.text).toBe(whole.slice(0, 100));
    expect(out.spillPath).toBe('/spill/0.txt');
    expect(spill.files).toEqual([{ path: '/spill/0.txt', text: whole, state: 'finished' }]);
  });

  it('discards the spill when the output fits once its trailing newline is removed', async () => {
    const spill = new MemorySpill();
    const out = await renderChunks(['abcde\r\n'], 5, spill);
    expect(out.spillPath).toBeNull();
    expect(out.clipped).toBe(false);
    expect(spill.files.map((f) => f.state)).toEqual(['discarded']);
  });

  it('opens no spill for output that fits', async () => {
    const spill = new MemorySpill();
    await renderChunks(['short\r\n'], 100, spill);
    expect(spill.files).toEqual([]);
  });

  it('gives the result without a path when the spill cannot be opened or saved', async () => {
    const failingOpen: SpillTarget = {
      open: () => {
        throw new Error('EACCES');
      },
    };
    const out = await renderChunks(['abcdefgh'], 5, failingOpen);
    expect(out).toMatchObject({ text: 'abcde', clipped: true, spillPath: null });
    const failingFinish: SpillTarget = {
      open: () => ({
        path: '/x',
        write: () => undefined,
        finish: () => Promise.reject(new Error('ENOSPC')),
        discard: async () => undefined,
      }),
    };
    expect((await renderChunks(['abcdefgh'], 5, failingFinish)).spillPath).toBeNull();
  });

  it('carries the lost-prefix flag from the constructor or markLostPrefix', async () => {
    const a = new OutputRenderer({ maxOutputChars: 10, spill: null, lostPrefix: true });
    expect((await a.finish()).lostPrefix).toBe(true);
    const b = new OutputRenderer({ maxOutputChars: 10, spill: null });
    b.markLostPrefix();
    expect((await b.finish()).lostPrefix).toBe(true);
  });

  it('gives the same result on a second finish and refuses data after it', async () => {
    const renderer = new OutputRenderer({ maxOutputChars: 10, spill: null });
    renderer.push(encoder.encode('hi\r\n'));
    const first = renderer.finish();
    expect(renderer.finish()).toBe(first);
    expect((await first).text).toBe('hi');
    expect(() => renderer.push(encoder.encode('x'))).toThrow(/after finish/);
  });
});

async function renderHeadTail(
  chunks: (string | Uint8Array)[],
  maxOutputChars: number,
  spill: SpillTarget | null = null,
): Promise<RenderedOutput> {
  const renderer = new OutputRenderer({ maxOutputChars, spill, clip: 'head-tail' });
  for (const chunk of chunks) renderer.push(bytesOf(chunk));
  return renderer.finish();
}

/** The head-tail clip of a whole rendering, worked out independently of the renderer. */
function expectedHeadTail(whole: string, max: number): Partial<RenderedOutput> {
  if (whole.length <= max) return { text: whole, tailStart: null, omittedChars: 0 };
  const high = (i: number) => /[\ud800-\udbff]/.test(whole.charAt(i));
  const low = (i: number) => /[\udc00-\udfff]/.test(whole.charAt(i));
  const headMax = Math.floor(max / 2);
  const headEnd = headMax > 0 && high(headMax - 1) ? headMax - 1 : headMax;
  const tailFrom = whole.length - (max - headMax);
  const tailStart = low(tailFrom) ? tailFrom + 1 : tailFrom;
  return {
    text: whole.slice(0, headEnd) + whole.slice(tailStart),
    tailStart: headEnd,
    omittedChars: tailStart - headEnd,
  };
}

/** A SpillTarget that takes everything and keeps nothing, for long streams. */
const nullSpill: SpillTarget = {
  open: () => ({
    path: '/spill/null.txt',
    write: () => undefined,
    finish: async () => undefined,
    discard: async () => undefined,
  }),
};

describe('OutputRenderer: head-tail clipping', () => {
  it('keeps the first floor(max/2) and the last max - floor(max/2) characters', async () => {
    expect(await renderHeadTail(['abcdefghijklmnopqrstuvwxyz\r\n'], 10)).toEqual({
      text: 'abcdevwxyz',
      clipped: true,
      totalChars: 26,
      spillPath: null,
      lostPrefix: false,
      omittedChars: 16,
      tailStart: 5,
    });
    expect(await renderHeadTail(['abcdefghijklmnopqrstuvwxyz'], 7)).toMatchObject({
      text: 'abcwxyz',
      tailStart: 3,
      omittedChars: 19,
    });
  });

  it('gives output that fits whole, with no tail, as in head mode', async () => {
    const fits = await renderHeadTail(['a\r\nbcd\r\n'], 5);
    expect(fits).toMatchObject({
      text: 'a\nbcd',
      clipped: false,
      omittedChars: 0,
      tailStart: null,
    });
    const exact = await renderHeadTail(['abcde\r\n'], 5);
    expect(exact).toMatchObject({ text: 'abcde', clipped: false, tailStart: null });
    expect((await renderHeadTail(['abcdef'], 5)).clipped).toBe(true);
  });

  it('removes exactly one trailing newline before taking the tail', async () => {
    const out = await renderHeadTail([`${'a'.repeat(20)}xy\r\n\r\n`], 10);
    expect(out).toMatchObject({ text: 'aaaaaaaxy\n', totalChars: 23, tailStart: 5 });
    expect((await renderHeadTail([`${'a'.repeat(20)}xy\n`], 10)).text).toBe('aaaaaaaaxy');
  });

  it('never splits a surrogate pair at the head cut', async () => {
    expect(await renderHeadTail(['ab😀cdefghij'], 6)).toMatchObject({
      text: 'abhij',
      tailStart: 2,
      omittedChars: 7,
      totalChars: 12,
    });
  });

  it('never splits a surrogate pair at the tail cut', async () => {
    expect(await renderHeadTail(['abcdefgh😀yz'], 6)).toMatchObject({
      text: 'abcyz',
      tailStart: 3,
      omittedChars: 7,
      totalChars: 12,
    });
    // The same with a trailing newline, where the kept tail begins exactly inside the pair.
    expect(await renderHeadTail(['abcdefg😀yz\r\n'], 6)).toMatchObject({
      text: 'abcyz',
      omittedChars: 6,
    });
    expect(await renderHeadTail(['abcdefgh😀y\r\n'], 6)).toMatchObject({
      text: 'abc😀y',
      omittedChars: 5,
    });
  });

  it('shows carriage-return redraws near both cuts in their final state', async () => {
    const input =
      'downloading [###       ]  30%\rdownloading [##########] 100%\r\n' +
      'line\r\n'.repeat(100) +
      'eta 9s [=         ]  10%\r\x1b[Keta 0s [==========] 100%';
    const whole = await renderChunks([input]);
    const bytes = encoder.encode(input);
    for (let i = 0; i <= bytes.length; i += 7) {
      const out = await renderHeadTail([bytes.subarray(0, i), bytes.subarray(i)], 40);
      expect(out, `split at ${i}`).toMatchObject({
        text: 'downloading [#######0s [==========] 100%',
        tailStart: 20,
        omittedChars: whole.totalChars - 40,
      });
    }
  });

  it('saves the whole output to the spill file and reports its path', async () => {
    const spill = new MemorySpill();
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}\r\n`).join('');
    const out = await renderHeadTail(['\x1b[32m', lines, 'tail'], 100, spill);
    const whole = `${lines.replaceAll('\r\n', '\n')}tail`;
    expect(out).toMatchObject({ ...expectedHeadTail(whole, 100), spillPath: '/spill/0.txt' });
    expect(spill.files).toEqual([{ path: '/spill/0.txt', text: whole, state: 'finished' }]);
  });

  it('gives the same head and tail with or without a spill, whatever the splits (property)', async () => {
    const token = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('é', '😀', '😀😀', '\t', '\r', '\n', '\r\n', '\r\n\r\n', '\b', '\x1b'),
      fc.constantFrom('\x1b[31m', '\x1b[K', '\x1b[2K', '\x1b[3G', '\x1b[2C', '\x1b[2D', '\x1b[2X'),
      fc.constantFrom('\x1b]0;t\x07', '\x1b[?1049h', '\x1b[?1049l', '\r 50%\r100%\r\n'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(token, { maxLength: 40 }),
        fc.nat(),
        fc.integer({ min: 0, max: 12 }),
        async (tokens, cut, max) => {
          const bytes = encoder.encode(tokens.join(''));
          const at = cut % (bytes.length + 1);
          const chunks = [bytes.subarray(0, at), bytes.subarray(at)];
          const whole = await renderChunks([bytes]);
          const expected = {
            ...expectedHeadTail(whole.text, max),
            clipped: whole.totalChars > max,
            totalChars: whole.totalChars,
          };
          expect(await renderHeadTail(chunks, max)).toMatchObject(expected);
          const spill = new MemorySpill();
          expect(await renderHeadTail(chunks, max, spill)).toMatchObject(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('keeps head mode as the default and as the explicit choice', async () => {
    const input = ['abcdefghijklmnopqrstuvwxyz\r\n'];
    const explicit = new OutputRenderer({ maxOutputChars: 10, spill: null, clip: 'head' });
    for (const chunk of input) explicit.push(bytesOf(chunk));
    expect(await explicit.finish()).toEqual(await renderChunks(input, 10));
  });

  it.each([
    ['without a spill', null],
    ['with a spill', nullSpill],
  ])(
    'retains little of a 50 MB stream of lines (%s) and gives its start and end',
    async (_, spill) => {
      const max = 16_000;
      const renderer = new OutputRenderer({ maxOutputChars: max, spill, clip: 'head-tail' });
      const chunk = encoder.encode('y\r\n'.repeat(64 * 1024));
      const chunks = Math.ceil((50 * 1024 * 1024) / chunk.length);
      let retained = 0;
      for (let i = 0; i < chunks; i++) {
        renderer.push(chunk);
        retained = Math.max(retained, renderer.retainedChars());
      }
      expect(retained).toBeLessThanOrEqual(3 * max);
      const out = await renderer.finish();
      expect(out.text).toBe('y\n'.repeat(4_000) + '\ny'.repeat(4_000));
      expect(out.tailStart).toBe(8_000);
      expect(out.totalChars).toBe(2 * 64 * 1024 * chunks - 1);
      expect(out.omittedChars).toBe(out.totalChars - max);
    },
  );

  it('retains little of a 50 MB line without a newline', async () => {
    const max = 16_000;
    const renderer = new OutputRenderer({ maxOutputChars: max, spill: null, clip: 'head-tail' });
    const chunk = encoder.encode('y'.repeat(256 * 1024));
    let retained = 0;
    for (let i = 0; i < 200; i++) {
      renderer.push(chunk);
      retained = Math.max(retained, renderer.retainedChars());
    }
    expect(retained).toBeLessThanOrEqual(LONG_LINE_COMMIT_CHARS + 3 * max);
    const out = await renderer.finish();
    expect(out.text).toBe('y'.repeat(max));
    expect(out.omittedChars).toBe(200 * 256 * 1024 - max);
  });
});

describe('OutputRenderer: a full-screen program waiting', () => {
  it('gives the screen text instead of the stream, clipped by the same rules', async () => {
    const spill = new MemorySpill();
    const renderer = new OutputRenderer({ maxOutputChars: 10, spill });
    renderer.push(bytesOf(`${'x'.repeat(50)}\r\n\x1b[?1049h`));
    // The emoji spans the 10th and 11th UTF-16 units: the cut moves before it.
    const output = await renderer.finish('screen ab😀 line two');
    expect(output).toMatchObject({ text: 'screen ab', clipped: true, spillPath: null });
    // The stream's own spill file is not offered, so it is removed.
    expect(spill.files.map((file) => file.state)).toEqual(['discarded']);
  });

  it('keeps the start and the end of a long screen in head-tail mode', async () => {
    const renderer = new OutputRenderer({ maxOutputChars: 10, spill: null, clip: 'head-tail' });
    const output = await renderer.finish('abcdefghij-klmnopqrstuvwxyz');
    expect(output).toMatchObject({ text: 'abcdevwxyz', tailStart: 5, omittedChars: 17 });
  });
});
