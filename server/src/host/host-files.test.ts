import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  decodeLinkFileChunk,
  type HostMessage,
  LINK_FILE_CHUNK_BYTES,
  LINK_FILE_WINDOW_BYTES,
} from '../../../shared/src/link.ts';
import { HostFiles, MAX_FILE_TRANSFERS } from './host-files.ts';

const NAME = '20260101T120000000Z-0a1b2c3d.txt';

/** A link that records what the host sends. */
class FakeLink {
  readonly messages: HostMessage[] = [];
  readonly chunks: { requestId: string; offset: number; data: Buffer }[] = [];
  bufferedAmount = 0;
  up = true;

  send(message: HostMessage): boolean {
    if (this.up) this.messages.push(message);
    return this.up;
  }

  sendFrame(frame: Uint8Array): boolean {
    const chunk = decodeLinkFileChunk(frame);
    if (chunk === null) throw new Error('not a file chunk frame');
    if (this.up) this.chunks.push({ ...chunk, data: Buffer.from(chunk.data) });
    return this.up;
  }

  bytes(requestId: string): Buffer {
    return Buffer.concat(this.chunks.filter((c) => c.requestId === requestId).map((c) => c.data));
  }
}

/** Polls until `check` holds (the host reads its files asynchronously). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2500 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(check()).toBe(true);
}

let dir: string;
let link: FakeLink;
let files: HostFiles;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'host-files-'));
  mkdirSync(join(dir, 'a1'));
  link = new FakeLink();
  files = new HostFiles(dir, link);
});

afterEach(() => {
  files.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('a host serving saved outputs', () => {
  it('sends a span within its window, and more as the control plane credits it', async () => {
    const content = randomBytes(LINK_FILE_WINDOW_BYTES * 2 + 123);
    writeFileSync(join(dir, 'a1', NAME), content);
    files.handle({ type: 'file_open', requestId: 'r1', agent: 'a1', name: NAME });
    await until(() => link.messages.length === 1);
    expect(link.messages).toEqual([{ type: 'file_opened', requestId: 'r1', size: content.length }]);
    files.handle({ type: 'file_read', requestId: 'r1', start: 10, end: content.length });
    await until(() => link.bytes('r1').length === LINK_FILE_WINDOW_BYTES);
    // The window is full: nothing more until credit comes.
    await new Promise((r) => setTimeout(r, 30));
    expect(link.bytes('r1').length).toBe(LINK_FILE_WINDOW_BYTES);
    expect(Math.max(...link.chunks.map((c) => c.data.length))).toBeLessThanOrEqual(
      LINK_FILE_CHUNK_BYTES,
    );
    files.handle({ type: 'file_credit', requestId: 'r1', offset: 10 + LINK_FILE_WINDOW_BYTES });
    await until(() => link.bytes('r1').length === 2 * LINK_FILE_WINDOW_BYTES);
    files.handle({ type: 'file_credit', requestId: 'r1', offset: 10 + 2 * LINK_FILE_WINDOW_BYTES });
    await until(() => link.bytes('r1').length === content.length - 10);
    expect(link.bytes('r1').equals(content.subarray(10))).toBe(true);
    let next = 10;
    for (const chunk of link.chunks) {
      expect(chunk.offset).toBe(next);
      next += chunk.data.length;
    }
  });

  it('waits while the socket is full', async () => {
    writeFileSync(join(dir, 'a1', NAME), 'hello');
    link.bufferedAmount = 8 * 1024 * 1024;
    files.handle({ type: 'file_open', requestId: 'r1', agent: 'a1', name: NAME });
    await until(() => link.messages.length === 1);
    files.handle({ type: 'file_read', requestId: 'r1', start: 0, end: 5 });
    await new Promise((r) => setTimeout(r, 30));
    expect(link.chunks).toEqual([]);
    link.bufferedAmount = 0;
    await until(() => link.bytes('r1').toString() === 'hello');
  });

  it('answers not_found for a name not the engine’s, a symbolic link, a hard link, a linked folder or a missing file', async () => {
    writeFileSync(join(dir, 'a1', NAME), 'mine');
    mkdirSync(join(dir, 'other'));
    const theirs = '20260101T120000000Z-ffffffff.txt';
    writeFileSync(join(dir, 'other', theirs), 'secret');
    const linked = '20260101T120000001Z-00000001.txt';
    symlinkSync(join(dir, 'other', theirs), join(dir, 'a1', linked));
    const hard = '20260101T120000002Z-00000002.txt';
    linkSync(join(dir, 'other', theirs), join(dir, 'a1', hard));
    symlinkSync(join(dir, 'other'), join(dir, 'linked-agent'));
    const asks: [string, string][] = [
      ['a1', '../other/20260101T120000000Z-ffffffff.txt'],
      ['a1', 'notes.txt'],
      ['a1', linked],
      ['a1', hard],
      ['a1', '20260101T120000003Z-00000003.txt'],
      ['linked-agent', theirs],
      ['..', NAME],
    ];
    for (const [i, [agent, name]] of asks.entries()) {
      files.handle({ type: 'file_open', requestId: `r${i}`, agent, name });
    }
    await until(() => link.messages.length === asks.length);
    expect(link.messages.map((m) => m.type === 'file_error' && m.reason)).toEqual(
      asks.map(() => 'not_found'),
    );
    expect(link.chunks).toEqual([]);
  });

  it(`serves ${MAX_FILE_TRANSFERS} transfers at once and refuses more as busy`, async () => {
    writeFileSync(join(dir, 'a1', NAME), 'x');
    for (let i = 0; i <= MAX_FILE_TRANSFERS; i++) {
      files.handle({ type: 'file_open', requestId: `r${i}`, agent: 'a1', name: NAME });
    }
    await until(() => link.messages.length === MAX_FILE_TRANSFERS + 1);
    expect(link.messages.filter((m) => m.type === 'file_opened')).toHaveLength(MAX_FILE_TRANSFERS);
    expect(link.messages.find((m) => m.type === 'file_error')).toMatchObject({
      requestId: `r${MAX_FILE_TRANSFERS}`,
      reason: 'busy',
    });
    // A closed transfer makes room.
    files.handle({ type: 'file_close', requestId: 'r0' });
    files.handle({ type: 'file_open', requestId: 'again', agent: 'a1', name: NAME });
    await until(() => link.messages.length === MAX_FILE_TRANSFERS + 2);
    expect(link.messages.at(-1)).toEqual({ type: 'file_opened', requestId: 'again', size: 1 });
  });

  it('drops a transfer whose link went down', async () => {
    writeFileSync(join(dir, 'a1', NAME), randomBytes(LINK_FILE_CHUNK_BYTES * 3));
    files.handle({ type: 'file_open', requestId: 'r1', agent: 'a1', name: NAME });
    await until(() => link.messages.length === 1);
    link.up = false;
    files.handle({ type: 'file_read', requestId: 'r1', start: 0, end: LINK_FILE_CHUNK_BYTES * 3 });
    await new Promise((r) => setTimeout(r, 30));
    link.up = true;
    // Gone: a credit for it sends nothing more.
    files.handle({ type: 'file_credit', requestId: 'r1', offset: LINK_FILE_CHUNK_BYTES });
    await new Promise((r) => setTimeout(r, 30));
    expect(link.chunks).toEqual([]);
  });
});
