import { describe, expect, it } from 'vitest';
import {
  decodeLinkFileChunk,
  decodeLinkOutput,
  encodeLinkFileChunk,
  encodeLinkOutput,
  LINK_FILE_FRAME,
  parseControlMessage,
  parseHostMessage,
} from './link.ts';

const ID = '0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d';

describe('file chunk frames', () => {
  it('carry the request id, the offset and the bytes exactly', () => {
    const data = Uint8Array.from([0, 255, 10, 13, 0xe2, 0x82, 0xac]);
    const frame = encodeLinkFileChunk(ID, 256 * 1024 * 1024 - 7, data);
    expect(frame[0]).toBe(LINK_FILE_FRAME);
    expect(frame.length).toBe(2 + ID.length + 8 + data.length);
    const chunk = decodeLinkFileChunk(frame);
    expect(chunk?.requestId).toBe(ID);
    expect(chunk?.offset).toBe(256 * 1024 * 1024 - 7);
    expect([...(chunk?.data ?? [])]).toEqual([...data]);
  });

  it('decode from a view inside a larger buffer (as ws hands frames over)', () => {
    const frame = encodeLinkFileChunk('r1', 5, Uint8Array.from([1, 2, 3]));
    const pool = new Uint8Array(frame.length + 10);
    pool.set(frame, 4);
    const chunk = decodeLinkFileChunk(pool.subarray(4, 4 + frame.length));
    expect(chunk).toEqual({ requestId: 'r1', offset: 5, data: Uint8Array.from([1, 2, 3]) });
  });

  it('carry an empty chunk', () => {
    expect(decodeLinkFileChunk(encodeLinkFileChunk('r', 0, new Uint8Array(0)))).toEqual({
      requestId: 'r',
      offset: 0,
      data: new Uint8Array(0),
    });
  });

  it('and output frames are told apart', () => {
    const output = encodeLinkOutput('shell-1', 3, Uint8Array.from([65]));
    expect(decodeLinkFileChunk(output)).toBeNull();
    expect(decodeLinkOutput(encodeLinkFileChunk('r1', 3, Uint8Array.from([65])))).toBeNull();
  });

  it('that are malformed decode to null', () => {
    const frame = encodeLinkFileChunk('r1', 9, Uint8Array.from([1]));
    expect(decodeLinkFileChunk(frame.subarray(0, 1))).toBeNull();
    expect(decodeLinkFileChunk(frame.subarray(0, 2 + 2 + 7))).toBeNull();
    const noId = Uint8Array.from(frame);
    noId[1] = 0;
    expect(decodeLinkFileChunk(noId)).toBeNull();
    const spaced = Uint8Array.from(frame);
    spaced[2] = 0x20;
    expect(decodeLinkFileChunk(spaced)).toBeNull();
    const fraction = Uint8Array.from(frame);
    new DataView(fraction.buffer).setFloat64(4, 1.5);
    expect(decodeLinkFileChunk(fraction)).toBeNull();
    const negative = Uint8Array.from(frame);
    new DataView(negative.buffer).setFloat64(4, -1);
    expect(decodeLinkFileChunk(negative)).toBeNull();
  });

  it('refuse an id that cannot head a frame, and an offset that is not a byte position', () => {
    expect(() => encodeLinkFileChunk('', 0, new Uint8Array(0))).toThrow(/request id/);
    expect(() => encodeLinkFileChunk('a b', 0, new Uint8Array(0))).toThrow(/request id/);
    expect(() => encodeLinkFileChunk('x'.repeat(256), 0, new Uint8Array(0))).toThrow(/request id/);
    expect(() => encodeLinkFileChunk('é', 0, new Uint8Array(0))).toThrow(/request id/);
    expect(() => encodeLinkFileChunk('r', -1, new Uint8Array(0))).toThrow(/offset/);
    expect(() => encodeLinkFileChunk('r', 0.5, new Uint8Array(0))).toThrow(/offset/);
  });
});

describe('file messages', () => {
  it('from the control plane validate', () => {
    for (const message of [
      { type: 'file_open', requestId: ID, agent: 'a1', name: '20260101T000000000Z-0a1b2c3d.txt' },
      { type: 'file_read', requestId: ID, start: 0, end: 268_435_456 },
      { type: 'file_credit', requestId: ID, offset: 1_048_576 },
      { type: 'file_close', requestId: ID },
    ]) {
      expect(parseControlMessage(JSON.stringify(message))).toEqual({ ok: true, message });
    }
  });

  it('from a host validate', () => {
    for (const message of [
      { type: 'file_opened', requestId: ID, size: 0 },
      { type: 'file_error', requestId: ID, reason: 'not_found', message: 'no such file' },
      { type: 'file_error', requestId: ID, reason: 'busy', message: 'later' },
      { type: 'file_error', requestId: ID, reason: 'failed', message: 'EIO' },
    ]) {
      expect(parseHostMessage(JSON.stringify(message))).toEqual({ ok: true, message });
    }
  });

  it('that break the schema are refused, naming the type', () => {
    expect(
      parseControlMessage(
        JSON.stringify({ type: 'file_read', requestId: 'a b', start: 0, end: 1 }),
      ),
    ).toEqual({ ok: false, error: 'not a valid control-plane link message (type "file_read")' });
    expect(
      parseControlMessage(JSON.stringify({ type: 'file_credit', requestId: ID, offset: -1 })),
    ).toEqual({ ok: false, error: 'not a valid control-plane link message (type "file_credit")' });
    expect(
      parseHostMessage(
        JSON.stringify({ type: 'file_error', requestId: ID, reason: 'gone', message: '' }),
      ),
    ).toEqual({ ok: false, error: 'not a valid host link message (type "file_error")' });
    expect(
      parseHostMessage(JSON.stringify({ type: 'file_opened', requestId: ID, size: 1.5 })),
    ).toEqual({ ok: false, error: 'not a valid host link message (type "file_opened")' });
    // A host never asks the control plane for a file.
    expect(parseHostMessage(JSON.stringify({ type: 'file_close', requestId: ID })).ok).toBe(false);
  });
});
