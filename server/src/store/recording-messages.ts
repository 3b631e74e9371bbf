/**
 * What the history's main thread and its recording thread say to each other: gathered events
 * to append to a shell's recording (output as raw bytes, decoded over there), and a request to
 * report once everything sent so far is on disk.
 */
import type { AsciicastHeader, EventCode } from '../../../shared/src/asciicast.ts';
import type { RecordingDiskStatus } from './recording-disk.ts';
import type { RecordingLimits } from './recording-writer.ts';

export interface RecordingEventData {
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly code: EventCode;
  /** Output as the shell displayed it (UTF-8 bytes); marker, resize and input text as is. */
  readonly data: string | Uint8Array;
}

export type ToRecordingThread =
  | {
      readonly type: 'append';
      readonly id: string;
      readonly header: AsciicastHeader;
      readonly events: readonly RecordingEventData[];
      /** The shell ended: this is its last batch. */
      readonly ended: boolean;
    }
  | { readonly type: 'settle'; readonly seq: number };

export type FromRecordingThread =
  | { readonly type: 'settled'; readonly seq: number }
  | { readonly type: 'error'; readonly message: string }
  /** The disk's state changed (it refuses writes, takes them again, or bytes were dropped). */
  | { readonly type: 'status'; readonly status: RecordingDiskStatus };

export interface RecordingThreadData {
  readonly dir: string;
  readonly limits: RecordingLimits;
  /** `--database`: the recordings are chunks in this PostgreSQL (the thread's own pool). */
  readonly databaseUrl?: string;
}
