/**
 * The recording thread: turns each shell's gathered events into asciicast lines (UTF-8
 * decoded across chunk boundaries, JSON-escaped) and appends them to its files. Decoding and
 * escaping megabytes of a flood cost real CPU; here they never delay the server's event loop.
 */
import { setPriority } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { parentPort, workerData } from 'node:worker_threads';
import { eventLine, headerLine } from './asciicast.ts';
import type { PostgresRecordingWriters } from './postgres-recordings.ts';
import { RecordingDisk } from './recording-disk.ts';
import { RecordingFiles } from './recording-files.ts';
import type {
  FromRecordingThread,
  RecordingEventData,
  RecordingThreadData,
  ToRecordingThread,
} from './recording-messages.ts';
import type { RecordingWriter } from './recording-writer.ts';

interface ShellRecording {
  readonly writer: RecordingWriter;
  readonly decoder: StringDecoder;
  /** Event times count from the header's whole-second timestamp. */
  readonly epochMs: number;
  /** Characters of one event line at most, so a line never passes the rotation size. */
  readonly maxChars: number;
}

/** `text` in pieces of at most `maxChars`, never splitting a surrogate pair. */
function pieces(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + maxChars, text.length);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

const MS_PER_SECOND = 1000;
/** While the disk refuses writes, what waits is tried again this often. */
const RETRY_INTERVAL_MS = 1000;
/** Bytes a character of output may take in an event line (JSON's `\u001b` is six). */
const MAX_LINE_BYTES_PER_CHAR = 6;
/** Room in a part beside its header and an event's time and code. */
const LINE_FRAME_BYTES = 64;
/**
 * Recording is less urgent than the shells it records: on Linux a nice value set from a thread
 * is that thread's alone, so on a busy machine this thread leaves most of the CPU to the PTY
 * path (nice 10 weighs about a tenth of the server's 0) yet still keeps up within moments.
 */
const RECORDING_THREAD_NICE = 10;
try {
  setPriority(RECORDING_THREAD_NICE);
} catch {
  // Not permitted here: the thread runs at the server's priority.
}
/** Connections the thread's own pool may hold: one writes, one more for the budget's look. */
const RECORDING_POOL_CONNECTIONS = 2;
const { dir, limits, databaseUrl } = workerData as RecordingThreadData;
const files = await recordingsOf(databaseUrl);
const shells = new Map<string, ShellRecording>();
/** Writers (of open or ended shells) holding what the disk refused, to try again. */
const waiting = new Set<RecordingWriter>();
const disk = new RecordingDisk(
  files.space,
  limits.maxTotalBytes,
  () => new Set([...shells.keys(), ...[...waiting].map((writer) => writer.sessionId)]),
  (status) => send({ type: 'status', status }),
);
const retryTimer = setInterval(() => {
  for (const writer of waiting) {
    void writer.retry().then(() => {
      if (!writer.waiting) waiting.delete(writer);
    });
  }
}, RETRY_INTERVAL_MS);
retryTimer.unref();
/** Writers of shells that ended and whose last lines may still be on their way to disk. */
const finishing = new Set<Promise<void>>();
/** Shells whose write failure was reported (once: later appends are dropped quietly). */
const reported = new Set<string>();

/**
 * Files in the data dir, or chunks in PostgreSQL with `--database` (its driver loaded only
 * then: the embedded default starts this thread as it always did).
 */
async function recordingsOf(
  url: string | undefined,
): Promise<RecordingFiles | PostgresRecordingWriters> {
  if (url === undefined) return new RecordingFiles(dir, limits);
  const [{ readDatabaseUrl }, { PostgresDatabase }, { PostgresRecordingWriters }] =
    await Promise.all([
      import('../database/database-url.ts'),
      import('../database/postgres-database.ts'),
      import('./postgres-recordings.ts'),
    ]);
  const read = readDatabaseUrl({ raw: url, source: '--database' });
  if (read === null) return new RecordingFiles(dir, limits);
  const database = new PostgresDatabase(read, { maxConnections: RECORDING_POOL_CONNECTIONS });
  return new PostgresRecordingWriters(database, limits, (error) =>
    send({ type: 'error', message: `deleting a recording part: ${String(error)}` }),
  );
}

function send(message: FromRecordingThread): void {
  parentPort?.postMessage(message);
}

function lines(
  shell: ShellRecording,
  events: readonly RecordingEventData[],
  ended: boolean,
): string[] {
  const out: string[] = [];
  let lastAt = 0;
  for (const event of events) {
    lastAt = event.at;
    const text =
      typeof event.data === 'string'
        ? event.data
        : shell.decoder.write(
            Buffer.from(event.data.buffer, event.data.byteOffset, event.data.byteLength),
          );
    if (text === '') continue;
    for (const piece of pieces(text, shell.maxChars)) {
      out.push(eventLine(event.at - shell.epochMs, event.code, piece));
    }
  }
  // The shell is gone: bytes the decoder still holds (a cut-off character) end the output.
  const rest = ended ? shell.decoder.end() : '';
  if (rest !== '') out.push(eventLine((lastAt || Date.now()) - shell.epochMs, 'o', rest));
  return out;
}

parentPort?.on('message', (message: ToRecordingThread) => {
  if (message.type === 'settle') {
    const pending = [...[...shells.values()].map((shell) => shell.writer.settled()), ...finishing];
    void Promise.all(pending).then(() => send({ type: 'settled', seq: message.seq }));
    return;
  }
  let shell = shells.get(message.id);
  if (shell === undefined) {
    const epochMs = message.header.timestamp * MS_PER_SECOND;
    const room = limits.maxFileBytes - Buffer.byteLength(headerLine(message.header));
    shell = {
      writer: files.writer(message.id, message.header, {
        disk,
        markerLine: (text) => eventLine(Date.now() - epochMs, 'm', text),
      }),
      decoder: new StringDecoder('utf8'),
      epochMs,
      maxChars: Math.max(1, Math.floor((room - LINE_FRAME_BYTES) / MAX_LINE_BYTES_PER_CHAR)),
    };
    shells.set(message.id, shell);
  }
  const { writer } = shell;
  const written = writer.append(lines(shell, message.events, message.ended)).then(() => {
    if (writer.waiting) waiting.add(writer);
    const error = writer.error;
    if (error === null || reported.has(message.id)) return;
    reported.add(message.id);
    send({ type: 'error', message: `recording ${message.id}: ${error.message}` });
  });
  if (message.ended) {
    shells.delete(message.id);
    finishing.add(written);
    void written.then(() => finishing.delete(written));
  }
});
