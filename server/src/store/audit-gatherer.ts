/**
 * Gathers the auth events between two history flushes. A refusal is counted into one row per
 * address, status and minute (anyone on the network can send thousands a second; the audit
 * must say "5,000 refusals from 10.0.0.9 in this minute", not hold 5,000 rows), every other
 * event is a row of its own.
 */
import type { AuthEvent } from '../auth/auth-events.ts';
import type { AuditRow } from './history-store.ts';

const MS_PER_MINUTE = 60_000;
/**
 * Distinct refusal rows gathered at most between two flushes (half a second): past it, new
 * addresses are counted into one row for "many addresses", so memory stays bounded whatever
 * a flood does.
 */
export const MAX_GATHERED_REFUSAL_ROWS = 1000;
/** The address of the row that counts refusals past MAX_GATHERED_REFUSAL_ROWS. */
export const MANY_ADDRESSES = '(many addresses)';
/** Other events gathered at most between two flushes (mints and renames are rate-bound). */
const MAX_GATHERED_ROWS = 10_000;

interface Refusals {
  row: AuditRow;
  count: number;
  lastAt: string;
}

export class AuditGatherer {
  private rows: AuditRow[] = [];
  private refusals = new Map<string, Refusals>();
  /** Events not kept because MAX_GATHERED_ROWS was reached (counted, reported). */
  dropped = 0;

  add(event: AuthEvent, now = new Date()): void {
    if (event.kind !== 'refused') {
      if (this.rows.length >= MAX_GATHERED_ROWS) this.dropped += 1;
      else this.rows.push({ at: now.toISOString(), event });
      return;
    }
    const at = now.toISOString();
    const minute = new Date(Math.floor(now.getTime() / MS_PER_MINUTE) * MS_PER_MINUTE);
    let address = event.address;
    let key = bucketOf(event.status, address, minute);
    if (!this.refusals.has(key) && this.refusals.size >= MAX_GATHERED_REFUSAL_ROWS) {
      address = MANY_ADDRESSES;
      key = bucketOf(event.status, address, minute);
    }
    const gathered = this.refusals.get(key);
    if (gathered !== undefined) {
      gathered.count += 1;
      gathered.lastAt = at;
      return;
    }
    this.refusals.set(key, {
      row: { at, event: { ...event, address }, bucket: key },
      count: 1,
      lastAt: at,
    });
  }

  get size(): number {
    return this.rows.length + this.refusals.size;
  }

  /** Takes what gathered, oldest first. */
  take(): AuditRow[] {
    const refusals = [...this.refusals.values()].map(({ row, count, lastAt }) => ({
      ...row,
      count,
      lastAt,
    }));
    const rows = [...this.rows, ...refusals].sort((a, b) =>
      a.at < b.at ? -1 : a.at > b.at ? 1 : 0,
    );
    this.rows = [];
    this.refusals = new Map();
    return rows;
  }
}

/** One row per status, address and minute: the database adds a later flush's count to it. */
function bucketOf(status: number, address: string, minute: Date): string {
  return `${status} ${address} ${minute.toISOString()}`;
}
