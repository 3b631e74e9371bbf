import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Whether the data dir can be written, per area (history rows, recordings, tokens, saved
 * outputs): what failed and since when, what is kept in memory meanwhile and what was lost.
 * `/healthz` and `GET /api/storage` report it; a change is said on stderr even with logging
 * off, since an operator must hear about a full disk before they need the history.
 */

export const STORAGE_AREAS = ['history', 'recordings', 'tokens', 'outputs'] as const;
export type StorageArea = (typeof STORAGE_AREAS)[number];

/** What an area holds in memory until the disk takes it again, and what it had to drop. */
export interface StorageBacklog {
  readonly keptItems: number;
  readonly keptBytes: number;
  readonly droppedItems: number;
  readonly droppedBytes: number;
}

export interface StorageAreaReport extends StorageBacklog {
  readonly area: StorageArea;
  /** null while the area writes fine. */
  readonly failing: {
    readonly code: string;
    readonly message: string;
    readonly since: string;
  } | null;
}

export interface StorageReport {
  readonly state: 'ok' | 'degraded';
  readonly areas: readonly StorageAreaReport[];
}

/** errno codes (and SQLite's) that mean "the disk says no", not a bug of ours. */
const STORAGE_ERRNO = new Set(['ENOSPC', 'EROFS', 'EACCES', 'EPERM', 'EDQUOT', 'EIO', 'EFBIG']);
const SQLITE_STORAGE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|PERM)/;

/** The errno (or SQLite) code of a write failure the disk caused; undefined for anything else. */
export function storageErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  if (typeof code !== 'string') return undefined;
  return STORAGE_ERRNO.has(code) || SQLITE_STORAGE.test(code) ? code : undefined;
}

/**
 * Areas that write only when asked (a mint, a clipped call) learn the disk is back from a
 * probe: a small file written and removed this often while any of them fails.
 */
const PROBE_INTERVAL_MS = 2000;
const PROBED_AREAS: readonly StorageArea[] = ['tokens', 'outputs'];
const PROBE_FILE = '.write-probe';

/** The code of `--database`'s PostgreSQL not answering (database/postgres-database.ts). */
const DATABASE_UNAVAILABLE = 'DATABASE_UNAVAILABLE';

/** A disk that fails, recovers and fails again is said at most this often per area. */
const WARN_INTERVAL_MS = 60_000;

const NO_BACKLOG: StorageBacklog = { keptItems: 0, keptBytes: 0, droppedItems: 0, droppedBytes: 0 };

interface AreaState {
  failing: StorageAreaReport['failing'];
  backlog: StorageBacklog;
  /** When a failure was last said (ms), to say a flapping disk once a minute. */
  warnedAt: number;
  /** The current failure was said: its end will be too. */
  said: boolean;
}

export class StorageHealth {
  private readonly areas = new Map<StorageArea, AreaState>(
    STORAGE_AREAS.map((area) => [
      area,
      { failing: null, backlog: NO_BACKLOG, warnedAt: 0, said: false },
    ]),
  );

  private probeTimer: NodeJS.Timeout | undefined;
  private probeDir: string | null = null;

  /** `warn` gets one line per change (stderr unless a test captures it). */
  constructor(
    private readonly warn: (line: string) => void = (line) => {
      process.stderr.write(`${line}\n`);
    },
  ) {}

  /** Where the probe writes (the data dir); without one, areas recover on their next write. */
  probeIn(dir: string): void {
    this.probeDir = dir;
  }

  /** Stops the probe (the server closes). */
  close(): void {
    clearInterval(this.probeTimer);
    this.probeTimer = undefined;
  }

  get degraded(): boolean {
    return [...this.areas.values()].some((state) => state.failing !== null);
  }

  /** A write of `area` failed; said once per failing spell (and again if the cause changes). */
  failed(area: StorageArea, error: unknown, what: string): void {
    const state = this.state(area);
    const code = storageErrorCode(error) ?? errorName(error);
    const message = `${what}: ${error instanceof Error ? error.message : String(error)}`;
    if (state.failing?.code === code) return;
    state.failing = { code, message, since: new Date().toISOString() };
    if (PROBED_AREAS.includes(area)) this.startProbe();
    const now = Date.now();
    if (now - state.warnedAt < WARN_INTERVAL_MS) return;
    state.warnedAt = now;
    state.said = true;
    this.warn(
      code === DATABASE_UNAVAILABLE
        ? `jumpseat: warning: the database does not answer (${area}): ${message}; calls go on, and what can be kept waits in memory until it is back`
        : `jumpseat: warning: the data dir cannot be written (${code}, ${area}): ${message}; calls go on, and what can be kept waits in memory until the disk takes it again`,
    );
  }

  /** `area` wrote again: the spell is over (said once). */
  recovered(area: StorageArea): void {
    const state = this.state(area);
    if (state.failing === null) return;
    const database = state.failing.code === DATABASE_UNAVAILABLE;
    state.failing = null;
    // Said only after a failure that was said (a flapping disk is said once a minute).
    if (!state.said) return;
    state.said = false;
    const { droppedItems, droppedBytes } = state.backlog;
    const lost =
      droppedItems + droppedBytes === 0
        ? 'nothing was lost'
        : `lost while it failed: ${droppedItems} items, ${droppedBytes} bytes`;
    this.warn(
      database
        ? `jumpseat: the database takes ${area} writes again; ${lost}`
        : `jumpseat: the data dir takes ${area} writes again; ${lost}`,
    );
  }

  /** The server closes with `items` of `area` still waiting for the disk: they are lost. */
  lostOnClose(area: StorageArea, items: number): void {
    this.warn(
      `jumpseat: warning: closing with ${items} ${area} items the data dir never took; they are lost`,
    );
  }

  /** The area's current backlog (what it keeps and has dropped so far). */
  setBacklog(area: StorageArea, backlog: StorageBacklog): void {
    this.state(area).backlog = backlog;
  }

  report(): StorageReport {
    return {
      state: this.degraded ? 'degraded' : 'ok',
      areas: STORAGE_AREAS.map((area) => {
        const state = this.state(area);
        return { area, failing: state.failing, ...state.backlog };
      }),
    };
  }

  private startProbe(): void {
    if (this.probeTimer !== undefined || this.probeDir === null) return;
    const path = join(this.probeDir, PROBE_FILE);
    this.probeTimer = setInterval(() => {
      try {
        writeFileSync(path, 'probe\n');
        unlinkSync(path);
      } catch {
        return;
      }
      for (const area of PROBED_AREAS) this.recovered(area);
      this.close();
    }, PROBE_INTERVAL_MS);
    this.probeTimer.unref();
  }

  private state(area: StorageArea): AreaState {
    return this.areas.get(area) as AreaState;
  }
}

function errorName(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return 'EUNKNOWN';
}
