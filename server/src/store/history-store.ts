/**
 * What history writes and reads, whichever engine keeps it: the embedded SQLite file
 * (sqlite-history-store.ts) or the control plane's PostgreSQL (postgres-history-store.ts).
 * History itself (history.ts) gathers, batches and keeps rows in memory while the engine is
 * away; an engine only writes a batch in one transaction and reads rows back as the API's shapes.
 */
import type {
  AuditEvent,
  AuditQuery,
  CallInfo,
  ControlEvent,
  SessionInfo,
} from '../../../shared/src/api.ts';
import type { AuthEvent } from '../auth/auth-events.ts';

/** What a batch writes about one shell: its latest description. */
export interface ShellRow {
  readonly info: SessionInfo;
  readonly seenAt: string;
}

export interface ControlRow {
  readonly sessionId: string;
  readonly event: ControlEvent;
}

export interface AuditRow {
  readonly at: string;
  readonly event: AuthEvent;
  /** Aggregated refusals: the events the row stands for, the last one's time, its key. */
  readonly count?: number;
  readonly lastAt?: string;
  readonly bucket?: string;
}

/** Everything gathered since the last flush, written in one transaction. */
export interface WriteBatch {
  readonly shells: readonly ShellRow[];
  readonly calls: readonly CallInfo[];
  readonly controls: readonly ControlRow[];
  readonly audits: readonly AuditRow[];
}

export interface HistoryStore {
  /**
   * Once, before the first write: shells a stopped server left without an ending are ended
   * (each engine words its own rule: one process for SQLite, replicas for PostgreSQL).
   */
  start(): Promise<void>;
  /** One transaction; throws (nothing written) when the engine refuses it. */
  write(batch: WriteBatch): Promise<void>;
  /** Keeps the audit to `maxRows` (refusals and first uses go first); the rows deleted. */
  capAudit(maxRows: number): Promise<number>;
  /** Forgets shells that ended, and auth events, before `cutoff` (ISO); the shells forgotten. */
  forgetBefore(cutoff: string): Promise<number>;
  /** Every shell on record, newest first, as the sessions list shows an ended one. */
  shells(): Promise<SessionInfo[]>;
  shell(id: string): Promise<SessionInfo | undefined>;
  /** A shell's calls, oldest first. */
  calls(sessionId: string): Promise<CallInfo[]>;
  controlEvents(sessionId: string): Promise<ControlEvent[]>;
  /** The auth events `query` asks for, newest first. */
  auditEvents(query: AuditQuery): Promise<AuditEvent[]>;
  close(): Promise<void>;
}

/** Every column an auth event may fill; each kind sets its own (its fields are the columns). */
const NO_AUDIT_FIELDS = {
  tokenId: null,
  name: null,
  role: null,
  scope: null,
  by: null,
  address: null,
  status: null,
  reason: null,
  method: null,
  url: null,
};

/** An audit row's columns by name, the same for both engines. */
export function auditParams(row: AuditRow): Record<string, string | number | null> {
  return {
    ...NO_AUDIT_FIELDS,
    ...row.event,
    at: row.at,
    count: row.count ?? 1,
    lastAt: row.lastAt ?? null,
    bucket: row.bucket ?? null,
  };
}

/** Kinds the audit's size cap drops first: what anyone on the network can cause. */
export const AUDIT_NOISE_KINDS = ['refused', 'new_address'] as const;
