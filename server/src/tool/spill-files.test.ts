import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutputRenderer } from './output-renderer.ts';
import {
  SPILL_FILE_MAX_BYTES,
  SPILL_FILES_KEPT_PER_AGENT,
  SpillFiles,
  spillCapCutLine,
  spillCutLine,
} from './spill-files.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jumpseat-spill-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('SpillFiles', () => {
  it('creates a private file per call under <dir>/<agent>/ with an absolute, sortable name', async () => {
    const files = new SpillFiles(join(dir, 'spill'));
    const writer = files.create('agent-1');
    expect(isAbsolute(writer.path)).toBe(true);
    expect(relative(dir, dirname(writer.path))).toBe(join('spill', 'agent-1'));
    expect(basename(writer.path)).toMatch(/^\d{8}T\d{9}Z-[0-9a-f]{8}\.txt$/);
    writer.write('hello\n');
    await writer.finish();
    expect(await readFile(writer.path, 'utf8')).toBe('hello\n');
    // Group-readable: a shell that runs as its own user reads it through the directory's group
    // (launch/shell-ownership.ts); unshared, the 0700 directory keeps everyone else out.
    expect((await stat(writer.path)).mode & 0o777).toBe(0o640);
    expect((await stat(dirname(writer.path))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'spill'))).mode & 0o777).toBe(0o700);
  });

  it('keeps the whole of many small writes, in order', async () => {
    const writer = new SpillFiles(dir).create('a1');
    let expected = '';
    for (let i = 0; i < 50_000; i++) {
      writer.write(`line ${i} ü\n`);
      expected += `line ${i} ü\n`;
    }
    await writer.finish();
    expect(await readFile(writer.path, 'utf8')).toBe(expected);
  });

  it(`keeps only the newest ${SPILL_FILES_KEPT_PER_AGENT} files of an agent`, async () => {
    const files = new SpillFiles(dir);
    const paths: string[] = [];
    for (let i = 0; i < SPILL_FILES_KEPT_PER_AGENT + 5; i++) {
      const writer = files.create('a1');
      writer.write(`${i}`);
      await writer.finish();
      paths.push(writer.path);
    }
    const other = files.create('a2');
    await other.finish();
    const kept = (await readdir(join(dir, 'a1'))).sort();
    expect(kept).toEqual(paths.slice(-SPILL_FILES_KEPT_PER_AGENT).map((p) => basename(p)));
    expect(await readdir(join(dir, 'a2'))).toEqual([basename(other.path)]);
  });

  it('leaves files it did not name alone', async () => {
    const files = new SpillFiles(dir, { keepPerAgent: 1 });
    await files.create('a1').finish();
    await writeFile(join(dir, 'a1', 'notes.txt'), 'mine');
    const last = files.create('a1');
    await last.finish();
    expect((await readdir(join(dir, 'a1'))).sort()).toEqual([basename(last.path), 'notes.txt']);
  });

  it('stops at the byte cap and ends the file with a line saying it was cut', async () => {
    const writer = new SpillFiles(dir, { maxFileBytes: 10 }).create('a1');
    writer.write('hello world, this is long');
    writer.write('more');
    await writer.finish();
    expect(await readFile(writer.path, 'utf8')).toBe(
      'hello worl\n[output cut here: a saved output is limited to 10 bytes]\n',
    );
  });

  it('cuts at the cap without splitting a UTF-8 sequence or doubling a newline', async () => {
    const euro = new SpillFiles(dir, { maxFileBytes: 5 }).create('a1');
    euro.write('abcd€');
    await euro.finish();
    expect(await readFile(euro.path, 'utf8')).toBe(`abcd\n${spillCutLine(5)}\n`);
    const newline = new SpillFiles(dir, { maxFileBytes: 4 }).create('a1');
    newline.write('abc\ndef');
    await newline.finish();
    expect(await readFile(newline.path, 'utf8')).toBe(`abc\n${spillCutLine(4)}\n`);
  });

  it("counts the line saying why toward the agent's cap, even with almost no room left", async () => {
    const cap = 300;
    /** What each file being written holds back for its cut line (CUT_LINE_RESERVE_BYTES). */
    const reserve = 128;
    const files = new SpillFiles(dir, { maxAgentBytes: cap });
    // Both are open while written (never deleted to make room): the second finds 24 bytes left.
    const first = files.create('a1');
    const second = files.create('a1');
    first.write('x'.repeat(20));
    second.write('y'.repeat(150));
    await Promise.all([first.finish(), second.finish()]);
    const kept = await readFile(first.path, 'utf8');
    const cut = await readFile(second.path, 'utf8');
    expect(kept).toBe('x'.repeat(20));
    const line = `\n${spillCapCutLine('agent', cap)}\n`;
    expect(cut).toBe(`${'y'.repeat(cap - 20 - 2 * reserve)}${line}`);
    // Counted as written: the held-back room that no line needed went back.
    expect(files.totalBytes).toBe(Buffer.byteLength(kept + cut));
  });

  it('caps at 256 MiB by default', () => {
    expect(SPILL_FILE_MAX_BYTES).toBe(256 * 1024 * 1024);
    expect(spillCutLine(SPILL_FILE_MAX_BYTES)).toBe(
      '[output cut here: a saved output is limited to 256 MiB]',
    );
  });

  it('removes the file on discard', async () => {
    const writer = new SpillFiles(dir).create('a1');
    writer.write('x');
    await writer.discard();
    expect(await readdir(join(dir, 'a1'))).toEqual([]);
  });

  it('refuses agent ids that are not safe directory names', () => {
    const files = new SpillFiles(dir);
    for (const bad of ['..', '.hidden', 'a/b', '', 'a\\b']) {
      expect(() => files.create(bad)).toThrow(/invalid agent id/);
      expect(() => files.forAgent(bad)).toThrow(/invalid agent id/);
    }
  });
});

describe('SpillFiles with OutputRenderer', () => {
  it('saves the whole rendered output of a clipped call and reports its path', async () => {
    const renderer = new OutputRenderer({
      maxOutputChars: 1000,
      spill: new SpillFiles(dir).forAgent('a1'),
    });
    const encoder = new TextEncoder();
    let expected = '';
    for (let i = 1; i <= 20_000; i++) {
      renderer.push(encoder.encode(`\x1b[32m${i}\x1b[0m\r\n`));
      expected += `${i}\n`;
    }
    const out = await renderer.finish();
    expect(out.clipped).toBe(true);
    expect(out.text).toBe(expected.slice(0, 1000));
    expect(out.spillPath).not.toBeNull();
    expect(dirname(out.spillPath ?? '')).toBe(join(dir, 'a1'));
    expect(await readFile(out.spillPath ?? '', 'utf8')).toBe(expected);
  });

  it('creates no file when the output fits', async () => {
    const renderer = new OutputRenderer({
      maxOutputChars: 1000,
      spill: new SpillFiles(dir).forAgent('a1'),
    });
    renderer.push(new TextEncoder().encode('short\r\n'));
    expect((await renderer.finish()).spillPath).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });
});
