import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAsciicast } from '../../../shared/src/asciicast.ts';
import { eventLine, headerLine, joinParts } from './asciicast.ts';
import { RecordingDisk, type RecordingDiskStatus, recordingGapMarker } from './recording-disk.ts';
import { RecordingFiles } from './recording-files.ts';

const HEADER = { version: 2, width: 80, height: 24, timestamp: 1_800_000_000 } as const;
const DAY_MS = 24 * 3600 * 1000;
let dir: string;

beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'jumpseat-recordings-')), 'recordings');
  mkdirSync(dir);
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

function files(limits: Partial<ConstructorParameters<typeof RecordingFiles>[1]> = {}) {
  return new RecordingFiles(dir, {
    maxFileBytes: 1_000_000,
    maxTotalBytes: 1_000_000,
    maxAgeDays: 30,
    ...limits,
  });
}

/** A finished recording of `bytes` output bytes, last written `daysAgo` days ago. */
function pastRecording(id: string, bytes: number, daysAgo: number): string {
  const path = join(dir, `${id}.cast`);
  writeFileSync(path, headerLine(HEADER) + eventLine(0, 'o', 'x'.repeat(bytes)));
  const when = new Date(Date.now() - daysAgo * DAY_MS);
  utimesSync(path, when, when);
  return path;
}

describe('asciicast', () => {
  it('drops a trailing partial line, as a kill mid-write leaves it', () => {
    const text = `${headerLine(HEADER)}${eventLine(1500, 'o', 'hé\r\n')}[2.5, "o", "cut`;
    expect(parseAsciicast(text)).toEqual({ header: HEADER, events: [[1.5, 'o', 'hé\r\n']] });
  });

  it('joins parts under the first header, each part’s own header dropped', () => {
    const a = headerLine(HEADER) + eventLine(0, 'o', 'a');
    const b = headerLine(HEADER) + eventLine(1000, 'm', 'ls') + eventLine(2000, 'o', 'b');
    expect(joinParts([a, b])).toBe(
      `${JSON.stringify(HEADER)}\n[0,"o","a"]\n[1,"m","ls"]\n[2,"o","b"]\n`,
    );
  });
});

describe('RecordingWriter', () => {
  it('starts each part with the header and rotates before a part passes the cap', async () => {
    const recordings = files({ maxFileBytes: 200 });
    const writer = recordings.writer('s1', HEADER);
    const lines = Array.from({ length: 6 }, (_, i) => eventLine(i * 1000, 'o', `${i}`.repeat(40)));
    await writer.append(lines.slice(0, 2));
    await writer.append(lines.slice(2));
    const names = readdirSync(dir).sort();
    expect(names).toEqual(['s1.2.cast', 's1.3.cast', 's1.cast']);
    for (const name of names) {
      const text = readFileSync(join(dir, name), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(200);
      expect(parseAsciicast(text).header).toEqual(HEADER);
    }
    const joined = parseAsciicast((await recordings.read('s1')) ?? '');
    expect(joined.events.map(([, , data]) => data)).toEqual(
      Array.from({ length: 6 }, (_, i) => `${i}`.repeat(40)),
    );
  });

  it('puts one event larger than the cap in a part of its own', async () => {
    const writer = files({ maxFileBytes: 100 }).writer('big', HEADER);
    await writer.append([eventLine(0, 'o', 'a'), eventLine(1, 'o', 'b'.repeat(300))]);
    expect(readdirSync(dir).sort()).toEqual(['big.2.cast', 'big.cast']);
  });
});

describe('retention', () => {
  it('deletes recordings older than the age cap', async () => {
    const old = pastRecording('old', 10, 31);
    const recent = pastRecording('recent', 10, 29);
    expect(await files({ maxAgeDays: 30 }).applyRetention(new Set())).toEqual([old]);
    expect(readdirSync(dir)).toEqual([recent.split('/').at(-1)]);
  });

  it('deletes the oldest files while the total passes the size cap, keeping live shells’ newest parts', async () => {
    const oldest = pastRecording('a', 1000, 5);
    pastRecording('b', 1000, 4);
    const middle = pastRecording('c', 1000, 3);
    pastRecording('d', 1000, 2);
    // Each file is about 1,100 bytes: two fit under 2,500.
    const deleted = await files({ maxTotalBytes: 2500 }).applyRetention(new Set(['b']));
    expect(deleted).toEqual([oldest, middle]);
    expect(readdirSync(dir).sort()).toEqual(['b.cast', 'd.cast']);
  });

  it('serves what is left of a recording whose first part retention deleted', async () => {
    const recordings = files({ maxFileBytes: 120 });
    const writer = recordings.writer('s2', HEADER);
    await writer.append([eventLine(0, 'o', 'first'.repeat(10)), eventLine(5000, 'o', 'second')]);
    rmSync(join(dir, 's2.cast'));
    expect(parseAsciicast((await recordings.read('s2')) ?? '').events).toEqual([
      [5, 'o', 'second'],
    ]);
  });

  it('never reads a path made from an unsafe id', async () => {
    expect(await files().read('../../etc/passwd')).toBeNull();
  });
});

describe('a recording while the disk refuses writes', () => {
  it('keeps lines up to its bound, drops the rest, and writes them with a marker once it can', async () => {
    const statuses: RecordingDiskStatus[] = [];
    const disk = new RecordingDisk(
      files().space,
      1_000_000,
      () => new Set(['s1']),
      (s) => statuses.push(s),
      2000,
    );
    const writer = files().writer('s1', HEADER, {
      disk,
      markerLine: (text) => eventLine(0, 'm', text),
    });
    // The directory is gone: every write fails (ENOENT), as on a disk that says no.
    rmSync(dir, { recursive: true });
    const line = (i: number): string => eventLine(i, 'o', `${i}`.padEnd(480, '.'));
    await writer.append([line(1), line(2)]);
    expect(writer.waiting).toBe(true);
    expect(statuses.at(-1)?.failing?.code).toBe('ENOENT');
    for (let i = 3; i <= 12; i++) await writer.append([line(i)]);
    // The bound counts the two waiting lines too: what is left of 2,000 bytes is kept, the
    // rest dropped (and counted).
    expect(disk.droppedBytes).toBeGreaterThan(0);
    mkdirSync(dir);
    await writer.retry();
    expect(writer.waiting).toBe(false);
    expect(statuses.at(-1)?.failing).toBeNull();
    const text = readFileSync(join(dir, 's1.cast'), 'utf8');
    const events = parseAsciicast(text).events.map(([, code, data]) => [code, data.split('.')[0]]);
    const kept = events.length - 3;
    expect(kept).toBeGreaterThanOrEqual(1);
    expect(events).toEqual([
      ['o', '1'],
      ['o', '2'],
      ['m', recordingGapMarker(disk.droppedBytes, 'the disk refused it: ENOENT').split('.')[0]],
      ...Array.from({ length: kept }, (_, i) => ['o', `${i + 3}`]),
    ]);
    let dropped = 0;
    for (let i = 3 + kept; i <= 12; i++) dropped += Buffer.byteLength(line(i));
    expect(disk.droppedBytes).toBe(dropped);
  });
});
