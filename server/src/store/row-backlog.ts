/**
 * History rows the database could not take (a full or read-only disk), kept in memory up to a
 * byte bound and written with the next flush that succeeds. Past the bound the least precious
 * go first: audit rows, then control events, then the oldest calls; a shell's own row is tiny
 * and always kept (the latest description per shell).
 */
import type { CallInfo } from '../../../shared/src/api.ts';
import type { StorageBacklog } from '../ops/storage-health.ts';
import type { AuditRow, ControlRow, ShellRow, WriteBatch } from './history-database.ts';

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
  private droppedRows = 0;
  private droppedBytes = 0;

  constructor(private readonly maxBytes = MAX_KEPT_ROW_BYTES) {}

  get empty(): boolean {
    return this.shells.size + this.calls.length + this.controls.length + this.audits.length === 0;
  }

  /** Calls kept for a shell (the API serves them while the disk is away). */
  callsOf(sessionId: string): CallInfo[] {
    return this.calls.filter((call) => call.sessionId === sessionId);
  }

  controlsOf(sessionId: string): ControlRow['event'][] {
    return this.controls.filter((row) => row.sessionId === sessionId).map((row) => row.event);
  }

  shellsKept(): ShellRow[] {
    return [...this.shells.values()];
  }

  /** Everything kept plus `batch`, in the order it happened, as one batch to write. */
  with(batch: WriteBatch): WriteBatch {
    const shells = new Map(this.shells);
    for (const row of batch.shells) shells.set(row.info.id, row);
    return {
      shells: [...shells.values()],
      calls: [...this.calls, ...batch.calls],
      controls: [...this.controls, ...batch.controls],
      audits: [...this.audits, ...batch.audits],
    };
  }

  /** The batch that failed becomes what is kept (trimmed to the bound). */
  keep(batch: WriteBatch): void {
    this.shells = new Map(batch.shells.map((row) => [row.info.id, row]));
    this.calls = [...batch.calls];
    this.controls = [...batch.controls];
    this.audits = [...batch.audits];
    this.bytes =
      sum(this.calls, callBytes) + sum(this.controls, controlBytes) + sum(this.audits, auditBytes);
    this.trim();
  }

  /** Written: nothing is kept any more (what was dropped stays counted). */
  clear(): void {
    this.shells.clear();
    this.calls = [];
    this.controls = [];
    this.audits = [];
    this.bytes = 0;
  }

  /** Counts rows lost before they reached the backlog (e.g. the gatherer's own bound). */
  countDropped(rows: number): void {
    this.droppedRows += rows;
  }

  report(): StorageBacklog {
    return {
      keptItems: this.shells.size + this.calls.length + this.controls.length + this.audits.length,
      keptBytes: this.bytes,
      droppedItems: this.droppedRows,
      droppedBytes: this.droppedBytes,
    };
  }

  private trim(): void {
    const drop = <T>(rows: T[], size: (row: T) => number): void => {
      while (this.bytes > this.maxBytes && rows.length > 0) {
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
