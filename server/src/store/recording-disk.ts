/**
 * The recordings' budget, kept by the recording thread as bytes are written: the total cap
 * holds at write time (the oldest parts not being written are deleted to make room, and past
 * that output is dropped with a marker), and what the storage refuses (a full or read-only
 * disk, PostgreSQL away) is kept in memory up to a bound and written when it takes writes again.
 */
import { storageErrorCode } from '../ops/storage-health.ts';

/** Room under the total cap kept for markers, so saying what was dropped never passes it. */
export const MARKER_RESERVE_BYTES = 4096;
/** Recording bytes kept in memory while the disk refuses them, for all shells together. */
export const MAX_KEPT_RECORDING_BYTES = 32 * 1024 * 1024;

/** One stored part as the budget sees it. */
export interface SpacePart {
  /** What `remove` needs to find it again (a path, or a shell id and part number). */
  readonly key: string;
  readonly sessionId: string;
  readonly size: number;
  readonly mtime: number;
  /** Never deleted to make room (a shell still running somewhere, as its storage knows). */
  readonly pinned: boolean;
}

/**
 * Where the recordings are, as the budget sees it: the data dir's files, or PostgreSQL's
 * chunks as last read (`prepare` reads them again when they may have changed).
 */
export interface RecordingSpace {
  /**
   * Before a batch is planned: brings what `scan` answers up to date when it may be old;
   * true when it read the storage again (the files' view is always current: false).
   */
  prepare(): Promise<boolean>;
  scan(): SpacePart[];
  /** Deletes a part; false when it could not. */
  remove(part: SpacePart): boolean;
}

/** The marker put where output stopped being recorded because of the total cap. */
export function recordingCapMarker(maxTotalBytes: number): string {
  return `recording cap reached: output from here is not recorded (recordings are limited to ${maxTotalBytes} bytes in all)`;
}

/** The marker put where recording resumes after the cap or a disk failure. */
export function recordingGapMarker(droppedBytes: number, why: string): string {
  return `recording resumed: ${droppedBytes} bytes of output were not recorded (${why})`;
}

export interface RecordingDiskStatus {
  readonly failing: { readonly code: string; readonly message: string } | null;
  readonly backlog: {
    readonly keptItems: number;
    readonly keptBytes: number;
    readonly droppedItems: number;
    readonly droppedBytes: number;
  };
}

export class RecordingDisk {
  /** Bytes of recordings on disk (known exactly after a scan, kept up to date by writes). */
  private total: number | null = null;
  /** Bytes reserved and not yet on disk (a scan does not see them). */
  private inFlight = 0;
  /** Bytes waiting in memory for the disk, and how many writes that is. */
  keptBytes = 0;
  keptWrites = 0;
  /** Bytes dropped because the memory bound was reached while the disk refused writes. */
  droppedBytes = 0;
  droppedWrites = 0;
  private failing: RecordingDiskStatus['failing'] = null;

  constructor(
    private readonly space: RecordingSpace,
    readonly maxTotalBytes: number,
    /**
     * Shells whose recordings must not be deleted to make room (those being written): a live
     * shell never loses its beginning; past the cap its new output is dropped, with a marker.
     */
    private readonly activeShells: () => ReadonlySet<string>,
    private readonly onStatus: (status: RecordingDiskStatus) => void,
    /** Bytes kept in memory at most while the disk refuses writes. */
    private readonly maxKeptBytes = MAX_KEPT_RECORDING_BYTES,
  ) {}

  /**
   * Takes `bytes` from the budget if they fit under the cap (less the marker reserve unless
   * `marker`), deleting the oldest inactive files when they do not; false when even that
   * leaves no room.
   */
  /** Brings the space's view up to date before a batch is planned (PostgreSQL's may be old). */
  async prepare(): Promise<void> {
    // A failure leaves the last view: the write that follows fails too and says why.
    const reread = await this.space.prepare().catch(() => false);
    // Counted again from what the storage holds now.
    if (reread) this.total = null;
  }

  reserve(bytes: number, marker = false): boolean {
    const limit = marker ? this.maxTotalBytes : this.maxTotalBytes - MARKER_RESERVE_BYTES;
    this.total ??= this.inFlight + this.space.scan().reduce((sum, part) => sum + part.size, 0);
    if (this.total + bytes <= limit) {
      this.total += bytes;
      this.inFlight += bytes;
      return true;
    }
    const parts = this.space.scan();
    this.total = this.inFlight + parts.reduce((sum, part) => sum + part.size, 0);
    const active = this.activeShells();
    parts.sort((a, b) => a.mtime - b.mtime);
    for (const part of parts) {
      if (this.total + bytes <= limit) break;
      if (part.pinned || active.has(part.sessionId)) continue;
      if (this.space.remove(part)) this.total -= part.size;
    }
    if (this.total + bytes > limit) return false;
    this.total += bytes;
    this.inFlight += bytes;
    return true;
  }

  /** Reserved bytes reached the disk. */
  landed(bytes: number): void {
    this.inFlight = Math.max(0, this.inFlight - bytes);
  }

  /** Gives back a reservation that was never written (dropped). */
  release(bytes: number): void {
    this.inFlight = Math.max(0, this.inFlight - bytes);
    if (this.total !== null) this.total = Math.max(0, this.total - bytes);
  }

  /** Can `bytes` more wait in memory? Counted as kept when they can, as dropped when not. */
  keep(bytes: number): boolean {
    if (this.keptBytes + bytes > this.maxKeptBytes) {
      this.droppedBytes += bytes;
      this.droppedWrites += 1;
      this.report();
      return false;
    }
    this.keptBytes += bytes;
    this.keptWrites += 1;
    return true;
  }

  /** A planned write waits for the disk (always kept: it is at most one batch). */
  hold(bytes: number): void {
    this.keptBytes += bytes;
    this.keptWrites += 1;
  }

  /** Kept bytes (`writes` keeps of them) reached the disk. */
  unkeep(bytes: number, writes = 1): void {
    this.keptBytes = Math.max(0, this.keptBytes - bytes);
    this.keptWrites = Math.max(0, this.keptWrites - writes);
  }

  /** The disk refused a write: said once per cause. Any error counts (the write waits). */
  failed(error: unknown): void {
    const code = storageErrorCode(error) ?? codeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    const changed = this.failing?.code !== code;
    this.failing = { code, message };
    if (changed) this.report();
  }

  wroteAgain(): void {
    if (this.failing === null) return;
    this.failing = null;
    this.report();
  }

  get isFailing(): boolean {
    return this.failing !== null;
  }

  get failingCode(): string {
    return this.failing?.code ?? 'EIO';
  }

  report(): void {
    this.onStatus({
      failing: this.failing,
      backlog: {
        keptItems: this.keptWrites,
        keptBytes: this.keptBytes,
        droppedItems: this.droppedWrites,
        droppedBytes: this.droppedBytes,
      },
    });
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'EIO';
}
