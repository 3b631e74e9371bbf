/**
 * The repeat-count bounds (shared/src/terminal-bounds.ts) against xterm.js itself: a stream and
 * its bounded form draw the same screen and scrollback, and a count of 2^31 − 1 costs what a
 * count of the screen's size costs.
 */
import serialize from '@xterm/addon-serialize';
import headless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { TerminalBounds } from '../../../shared/src/terminal-bounds.ts';
import { guardTerminal } from '../../../shared/src/xterm-guard.ts';

const { Terminal } = headless;
const { SerializeAddon } = serialize;

const COLS = 30;
const ROWS = 10;
const SEED = Number(process.env.TERMINAL_BOUNDS_SEED ?? Date.now() % 1_000_000);
const STREAMS = 150;
const PIECES = 60;

/**
 * Screen, scrollback and cursor after parsing `chunks` on a fresh COLS×ROWS terminal, guarded
 * as every terminal of ours is (xterm-guard.ts: the streams reach its ED 1 defect).
 */
async function drawn(chunks: readonly Uint8Array[]): Promise<string> {
  const terminal = new Terminal({
    cols: COLS,
    rows: ROWS,
    scrollback: 50,
    allowProposedApi: true,
    logLevel: 'off',
  });
  guardTerminal(terminal, (error) => {
    throw new Error(`an xterm.js defect the guard does not know: ${String(error)}`);
  });
  const serializer = new SerializeAddon();
  terminal.loadAddon(serializer);
  for (const chunk of chunks) terminal.write(chunk);
  await new Promise<void>((resolve) => terminal.write('', resolve));
  const { cursorX, cursorY } = terminal.buffer.active;
  const screen = `${serializer.serialize()}|${cursorX},${cursorY}`;
  terminal.dispose();
  return screen;
}

function bounded(chunks: readonly Uint8Array[]): Uint8Array[] {
  const bounds = new TerminalBounds(() => ({ cols: COLS, rows: ROWS }));
  return chunks.map((chunk) => bounds.push(chunk));
}

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/**
 * Text, line ends and the bounded sequences with counts up to three times the bound (so the
 * unbounded stream is still cheap to draw), among scroll regions, cursor moves, erases and
 * OSC and DCS strings up to three times STRING_MAX_BYTES; cut into chunks at random places.
 */
function stream(next: (below: number) => number): Uint8Array[] {
  const pieces: string[] = [];
  for (let i = 0; i < PIECES; i++) {
    const lines = next(3 * ROWS + 1);
    const columns = next(3 * COLS + 1);
    const choice = next(13);
    if (choice === 0) pieces.push(`word${next(1000)} `);
    else if (choice === 1) pieces.push('\r\n');
    else if (choice === 2) pieces.push(`\x1b[${lines}${'STLM'[next(4)]}`);
    else if (choice === 3) pieces.push(`\x1b[${columns}${'ZI'[next(2)]}`);
    // A repeat within a line: past a line's width the bound changes what is drawn.
    else if (choice === 4) pieces.push(`x\x1b[${next(COLS + 1)}b`);
    else if (choice === 5) pieces.push(`\x1b[${1 + next(ROWS)};${1 + next(ROWS)}r`);
    else if (choice === 6) pieces.push(`\x1b[${1 + next(ROWS)};${1 + next(COLS)}H`);
    else if (choice === 7) pieces.push(`\x1b[${next(3)}J\x1b[${next(3)}K`);
    else if (choice === 8) pieces.push(`\x1b[${30 + next(8)};1m`);
    else if (choice === 9) pieces.push(`\xc2\x9b${lines}${'ST'[next(2)]}`);
    else if (choice === 10) pieces.push(`\x1b[${lines}\r${'LM'[next(2)]}`);
    else if (choice === 11) pieces.push('\x1b[?1049h'.slice(0, next(2) === 0 ? 0 : 8));
    // Strings from empty to well past STRING_MAX_BYTES, each of the ways they end.
    else {
      const payload = 'p\xc2\xa9'.repeat(next(8000));
      const opener = ['\x1b]0;', '\x1b]2;', '\x1bP$q', '\xc2\x9d0;', '\x1b]777;'][next(5)];
      const end = ['\x07', '\x1b\\', '\xc2\x9c', '\x18', '\x1b[3S'][next(5)];
      pieces.push(`${opener}${payload}${end}`);
    }
  }
  const bytes = Uint8Array.from(pieces.join(''), (ch) => ch.charCodeAt(0));
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + next(40);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

describe('TerminalBounds with xterm.js', () => {
  it(`draws what the unbounded stream draws (seed ${SEED})`, async () => {
    console.log(`terminal-bounds seed ${SEED} (TERMINAL_BOUNDS_SEED=${SEED} replays it)`);
    const next = random(SEED);
    for (let i = 0; i < STREAMS; i++) {
      const chunks = stream(next);
      expect(await drawn(bounded(chunks)), `stream ${i} of seed ${SEED}`).toBe(await drawn(chunks));
    }
  });

  it('draws for a count of 2^31 − 1 what a count of three screens draws', async () => {
    const lines = 3 * ROWS;
    const columns = 3 * COLS;
    const setup = 'one\r\ntwo\r\nthree\x1b[3;8r\x1b[5;4H';
    for (const [huge, small] of [
      ['\x1b[2147483647S', `\x1b[${lines}S`],
      ['\x1b[2147483647T', `\x1b[${lines}T`],
      ['\x1b[2147483647L', `\x1b[${lines}L`],
      ['\x1b[2147483647M', `\x1b[${lines}M`],
      ['\x1b[2147483647Z', `\x1b[${columns}Z`],
      ['\x1b[2147483647I', `\x1b[${columns}I`],
    ] as const) {
      const encode = (text: string) => Uint8Array.from(text, (ch) => ch.charCodeAt(0));
      expect(await drawn(bounded([encode(setup + huge)])), huge).toBe(
        await drawn([encode(setup + small)]),
      );
    }
  });
});
