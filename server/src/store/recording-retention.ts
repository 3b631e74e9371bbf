/**
 * Which recording parts retention deletes, whatever holds them (files or PostgreSQL chunks):
 * those not written for `maxAgeDays`, then the oldest while the total passes `maxTotalBytes`;
 * the newest part of each live shell (the one being written) is never among them.
 */
import type { RecordingLimits } from './recording-writer.ts';

const MS_PER_DAY = 24 * 3600 * 1000;

/** One part of one shell's recording: its size and when it was last written (ms). */
export interface StoredPart {
  readonly sessionId: string;
  readonly part: number;
  readonly size: number;
  readonly mtime: number;
}

export function partsToDelete<P extends StoredPart>(
  parts: readonly P[],
  live: ReadonlySet<string>,
  limits: RecordingLimits,
  now: number,
): P[] {
  const newestPart = new Map<string, number>();
  for (const part of parts) {
    newestPart.set(part.sessionId, Math.max(part.part, newestPart.get(part.sessionId) ?? 0));
  }
  const active = (part: P): boolean =>
    live.has(part.sessionId) && newestPart.get(part.sessionId) === part.part;
  const oldestKept = now - limits.maxAgeDays * MS_PER_DAY;
  let total = parts.reduce((sum, part) => sum + part.size, 0);
  const deleted: P[] = [];
  for (const part of [...parts].sort((a, b) => a.mtime - b.mtime)) {
    if (active(part)) continue;
    if (part.mtime >= oldestKept && total <= limits.maxTotalBytes) continue;
    total -= part.size;
    deleted.push(part);
  }
  return deleted;
}
