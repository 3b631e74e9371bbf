/**
 * History rows not yet written: gathered by a flush, then taken by the write that carries them
 * (in flight) and let go once it lands. Rows the database could not take (a full or read-only
 * disk, PostgreSQL away) come back and wait in memory up to a byte bound, written with the next
 * write that succeeds. Past the bound the least precious go first: audit rows, then control
 * events, then the oldest calls; a shell's own row is tiny and always kept (the latest
 * description per shell). Readers see every row here, in flight or waiting.
 */
import type { CallInfo } from '../../../shared/src/api.ts';
import type { StorageBacklog } from '../ops/storage-health.ts';
import type { AuditRow, ControlRow, ShellRow, WriteBatch } from './history-store.ts';

const NOTHING: WriteBatch = { shells: [], calls: [], controls: [], audits: [] };

/** Memory the kept rows may take (estimated from their text): a day of busy calls. */
export const MAX_KEPT_ROW_BYTES = 64 * 1024 * 1024;
/** Rough size of a row beside its text fields (keys, numbers, times). */
const ROW_OVERHEAD_BYTES = 200;

export class RowBacklog {
  private shells = new Map<string, ShellRow>();
  private calls: CallInfo[] = [];
  private controls: ControlRow[] = [];
  private audits: AuditRow[] = [];
  private bytes = 0;
  /** The batch a write carries now: still to be served, and kept again if it fails. */
  private inFlight: WriteBatch = NOTHING;
  private inFlightBytes = 0;
  private droppedRows = 0;
  private droppedBytes = 0;

  constructor(private readonly maxBytes = MAX_KEPT_ROW_BYTES) {}

  /** Nothing waits to be written (a write in flight may still fail and bring rows back). */
  get empty(): boolean {
    return this.shells.size + this.calls.length + this.controls.length + this.audits.length === 0;
  }

  /** Calls kept for a shell (the API serves them until they are written). */
  callsOf(sessionId: string): CallInfo[] {
    return [...this.inFlight.calls, ...this.calls].filter((call) => call.sessionId === sessionId);
  }

  controlsOf(sessionId: string): ControlRow['event'][] {
    return [...this.inFlight.controls, ...this.controls]
      .filter((row) => row.sessionId === sessionId)
      .map((row) => row.event);
  }

  shellsKept(): ShellRow[] {
    const shells = new Map(this.inFlight.shells.map((row) => [row.info.id, row]));
    for (const [id, row] of this.shells) shells.set(id, row);
    return [...shells.values()];
  }

  /** A flush's rows join what waits, after it (trimmed to the bound). */
  add(batch: WriteBatch): void {
    for (const row of batch.shells) this.shells.set(row.info.id, row);
    this.calls.push(...batch.calls);
    this.controls.push(...batch.controls);
    this.audits.push(...batch.audits);
    this.bytes +=
      sum(batch.calls, callBytes) +
      sum(batch.controls, controlBytes) +
      sum(batch.audits, auditBytes);
    this.trim();
  }

  /** Everything waiting, in the order it happened, as the batch one write carries. */
  take(): WriteBatch {
    this.inFlight = {
      shells: [...this.shells.values()],
      calls: this.calls,
      controls: this.controls,
      audits: this.audits,
    };
    this.inFlightBytes = this.bytes;
    this.shells = new Map();
    this.calls = [];
    this.controls = [];
    this.audits = [];
    this.bytes = 0;
    return this.inFlight;
  }

  /** The batch in flight was written. */
  landed(): void {
    this.inFlight = NOTHING;
    this.inFlightBytes = 0;
  }

  /** The batch in flight failed: it waits again, before what was gathered meanwhile. */
  putBack(): void {
    const failed = this.inFlight;
    const later = this.take();
    this.landed();
    this.add(failed);
    this.add(later);
  }

  /** Counts rows lost before they reached the backlog (e.g. the gatherer's own bound). */
  countDropped(rows: number): void {
    this.droppedRows += rows;
  }

  report(): StorageBacklog {
    const inFlight = this.inFlight;
    return {
      keptItems:
        this.shells.size +
        this.calls.length +
        this.controls.length +
        this.audits.length +
        inFlight.shells.length +
        inFlight.calls.length +
        inFlight.controls.length +
        inFlight.audits.length,
      keptBytes: this.bytes + this.inFlightBytes,
      droppedItems: this.droppedRows,
      droppedBytes: this.droppedBytes,
    };
  }

  private trim(): void {
    const drop = <T>(rows: T[], size: (row: T) => number): void => {
      // What a write carries counts too: memory stays bounded while a write hangs.
      while (this.bytes + this.inFlightBytes > this.maxBytes && rows.length > 0) {
        const bytes = size(rows.shift() as T);
        this.bytes -= bytes;
        this.droppedRows += 1;
        this.droppedBytes += bytes;
      }
    };
    drop(this.audits, auditBytes);
    drop(this.controls, controlBytes);
    drop(this.calls, callBytes);
  }
}

function sum<T>(rows: readonly T[], size: (row: T) => number): number {
  let total = 0;
  for (const row of rows) total += size(row);
  return total;
}

function callBytes(call: CallInfo): number {
  return ROW_OVERHEAD_BYTES + 2 * (call.command.length + call.output.length);
}

function controlBytes(row: ControlRow): number {
  return ROW_OVERHEAD_BYTES + 2 * row.event.name.length;
}

function auditBytes(row: AuditRow): number {
  return ROW_OVERHEAD_BYTES + 2 * JSON.stringify(row.event).length;
}
