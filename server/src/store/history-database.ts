/**
 * The SQLite side of history: shells, calls, control events and the auth audit, written in
 * batches (one transaction each) and read back as the API's shapes. WAL mode, so readers never
 * wait for the writer and a batch costs one fsync-free append to the log.
 */
import { chmodSync, closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type {
  AuditEvent,
  AuditQuery,
  CallInfo,
  ControlEvent,
  SessionEnding,
  SessionInfo,
} from '../../../shared/src/api.ts';
import type { AuthEvent } from '../auth/auth-events.ts';
import { migrate } from './migrations.ts';

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

const DB_FILE_MODE = 0o600;
/** Lets a busy reader (another process, a backup) hold the file this long before a write fails. */
const BUSY_TIMEOUT_MS = 5000;

interface ShellRecord {
  id: string;
  agent: string | null;
  owner: string | null;
  owner_id: string | null;
  dialect: string;
  started_at: string;
  cols: number;
  rows: number;
  last_exit_code: number | null;
  ended_at: string | null;
  ending_kind: string | null;
  ending_exit_code: number | null;
  ending_signal: string | null;
}

interface CallRecord {
  id: string;
  session_id: string;
  command: string;
  output: string;
  exit_code: number | null;
  outcome: string;
  started_at: string;
  duration_ms: number;
  controller: string | null;
  controller_token_id: string | null;
}

interface ControlRecord {
  at: string;
  kind: string;
  name: string;
  token_id: string | null;
  keys_recorded: number;
}

interface AuditRecord {
  id: number;
  at: string;
  kind: string;
  token_id: string | null;
  name: string | null;
  role: string | null;
  scope: string | null;
  by_name: string | null;
  address: string | null;
  status: number | null;
  reason: string | null;
  method: string | null;
  url: string | null;
  count: number;
  last_at: string | null;
}

/** Kinds the audit's size cap drops first: what anyone on the network can cause. */
const NOISE_KINDS = "('refused', 'new_address')";

export class HistoryDatabase {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(path: string) {
    // Calls hold whatever commands printed: owner only (SQLite gives its -wal and -shm files
    // the database file's mode).
    try {
      closeSync(openSync(path, 'a', DB_FILE_MODE));
      chmodSync(path, DB_FILE_MODE);
      this.db = new Database(path);
    } catch (error) {
      throw new Error(`cannot open the history database ${path}: ${(error as Error).message}`);
    }
    this.db.pragma('journal_mode = WAL');
    // With WAL, NORMAL loses at most the last transactions on a power cut, never integrity.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    migrate(this.db);
    this.statements = {
      upsertShell: this.db.prepare(`
        INSERT INTO shells (id, agent, owner, owner_id, dialect, started_at, cols, rows,
          last_exit_code, last_seen_at, ended_at, ending_kind, ending_exit_code, ending_signal)
        VALUES (@id, @agent, @owner, @ownerId, @dialect, @startedAt, @cols, @rows, @lastExitCode,
          @seenAt, @endedAt, @endingKind, @endingExitCode, @endingSignal)
        ON CONFLICT (id) DO UPDATE SET agent = excluded.agent, owner = excluded.owner,
          owner_id = excluded.owner_id,
          cols = excluded.cols, rows = excluded.rows, last_exit_code = excluded.last_exit_code,
          last_seen_at = excluded.last_seen_at, ended_at = excluded.ended_at,
          ending_kind = excluded.ending_kind, ending_exit_code = excluded.ending_exit_code,
          ending_signal = excluded.ending_signal`),
      insertCall: this.db.prepare(`
        INSERT OR REPLACE INTO calls (id, session_id, command, output, exit_code, outcome,
          started_at, duration_ms, controller, controller_token_id)
        VALUES (@id, @sessionId, @command, @output, @exitCode, @outcome, @startedAt,
          @durationMs, @controller, @controllerTokenId)`),
      insertControl: this.db.prepare(`
        INSERT INTO control_events (session_id, at, kind, name, token_id, keys_recorded)
        VALUES (?, ?, ?, ?, ?, ?)`),
      insertAudit: this.db.prepare(`
        INSERT INTO auth_events (at, kind, token_id, name, role, scope, by_name, address,
          status, reason, method, url, count, last_at, bucket)
        VALUES (@at, @kind, @tokenId, @name, @role, @scope, @by, @address, @status, @reason,
          @method, @url, @count, @lastAt, @bucket)
        ON CONFLICT (bucket) DO UPDATE SET count = count + excluded.count,
          last_at = excluded.last_at`),
      auditRows: this.db.prepare('SELECT count(*) AS n FROM auth_events'),
      shells: this.db.prepare('SELECT * FROM shells ORDER BY started_at DESC'),
      shell: this.db.prepare('SELECT * FROM shells WHERE id = ?'),
      calls: this.db.prepare('SELECT * FROM calls WHERE session_id = ? ORDER BY started_at, rowid'),
      controls: this.db.prepare(
        'SELECT at, kind, name, token_id, keys_recorded FROM control_events WHERE session_id = ? ORDER BY seq',
      ),
    };
  }

  /**
   * Shells a previous run left without an ending were running when that server stopped
   * without closing them: they ended when it last wrote anything of theirs.
   */
  endUnfinished(): number {
    return this.db
      .prepare(
        `UPDATE shells SET ended_at = last_seen_at, ending_kind = 'server_stopped'
         WHERE ended_at IS NULL`,
      )
      .run().changes;
  }

  /**
   * Forgets what is older than `cutoff` (ISO time): shells that ended before it, with their
   * calls and control events, and auth events from before it. Returns the shells forgotten.
   */
  forgetBefore(cutoff: string): number {
    return this.db.transaction(() => {
      const old = 'SELECT id FROM shells WHERE ended_at IS NOT NULL AND ended_at < ?';
      this.db.prepare(`DELETE FROM calls WHERE session_id IN (${old})`).run(cutoff);
      this.db.prepare(`DELETE FROM control_events WHERE session_id IN (${old})`).run(cutoff);
      this.db.prepare('DELETE FROM auth_events WHERE at < ?').run(cutoff);
      return this.db
        .prepare('DELETE FROM shells WHERE ended_at IS NOT NULL AND ended_at < ?')
        .run(cutoff).changes;
    })();
  }

  write(batch: WriteBatch): void {
    this.db.transaction(() => {
      for (const { info, seenAt } of batch.shells) {
        this.statements.upsertShell.run({
          ...info,
          ownerId: info.ownerId ?? null,
          seenAt,
          endingKind: info.ending?.kind ?? null,
          endingExitCode: info.ending?.exitCode ?? null,
          endingSignal: info.ending?.signal ?? null,
        });
      }
      for (const call of batch.calls) {
        this.statements.insertCall.run({
          ...call,
          controller: call.controller ?? null,
          controllerTokenId: call.controllerTokenId ?? null,
        });
      }
      for (const { sessionId, event } of batch.controls) {
        this.statements.insertControl.run(
          sessionId,
          event.at,
          event.kind,
          event.name,
          event.tokenId ?? null,
          event.keysRecorded ? 1 : 0,
        );
      }
      for (const audit of batch.audits) this.statements.insertAudit.run(auditParams(audit));
    })();
  }

  /** Every shell on record, newest first, as the sessions list shows an ended one. */
  shells(): SessionInfo[] {
    return (this.statements.shells.all() as ShellRecord[]).map(sessionOf);
  }

  shell(id: string): SessionInfo | undefined {
    const row = this.statements.shell.get(id) as ShellRecord | undefined;
    return row === undefined ? undefined : sessionOf(row);
  }

  calls(sessionId: string): CallInfo[] {
    return (this.statements.calls.all(sessionId) as CallRecord[]).map((row) => ({
      id: row.id,
      sessionId: row.session_id,
      command: row.command,
      output: row.output,
      exitCode: row.exit_code,
      outcome: row.outcome as CallInfo['outcome'],
      startedAt: row.started_at,
      durationMs: row.duration_ms,
      controller: row.controller,
      controllerTokenId: row.controller_token_id,
    }));
  }

  controlEvents(sessionId: string): ControlEvent[] {
    return (this.statements.controls.all(sessionId) as ControlRecord[]).map((row) => ({
      at: row.at,
      kind: row.kind as ControlEvent['kind'],
      name: row.name,
      tokenId: row.token_id,
      keysRecorded: row.keys_recorded === 1,
    }));
  }

  /**
   * Keeps the audit to `maxRows`: past it the oldest refusals and first uses go first (anyone
   * can cause those), then the oldest of the rest. Returns the rows deleted.
   */
  capAudit(maxRows: number): number {
    const { n } = this.statements.auditRows.get() as { n: number };
    if (n <= maxRows) return 0;
    return this.db.transaction(() => {
      const excess = n - maxRows;
      const noise = this.db
        .prepare(
          `DELETE FROM auth_events WHERE id IN (SELECT id FROM auth_events
           WHERE kind IN ${NOISE_KINDS} ORDER BY id LIMIT ?)`,
        )
        .run(excess).changes;
      if (noise >= excess) return noise;
      const rest = this.db
        .prepare(
          'DELETE FROM auth_events WHERE id IN (SELECT id FROM auth_events ORDER BY id LIMIT ?)',
        )
        .run(excess - noise).changes;
      return noise + rest;
    })();
  }

  /** The auth events `query` asks for, newest first. */
  auditEvents(query: AuditQuery): AuditEvent[] {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (query.kinds !== undefined && query.kinds.length > 0) {
      where.push(`kind IN (${query.kinds.map(() => '?').join(', ')})`);
      params.push(...query.kinds);
    }
    if (query.tokenId !== undefined) {
      where.push('token_id = ?');
      params.push(query.tokenId);
    }
    // An aggregated row covers [at, last_at]: it matches a window it overlaps.
    if (query.since !== undefined) {
      where.push('coalesce(last_at, at) >= ?');
      params.push(query.since);
    }
    if (query.until !== undefined) {
      where.push('at < ?');
      params.push(query.until);
    }
    if (query.before !== undefined) {
      where.push('id < ?');
      params.push(query.before);
    }
    const sql = `SELECT * FROM auth_events ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY id DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...params, query.limit) as AuditRecord[];
    return rows.map((row) => ({
      id: row.id,
      at: row.at,
      kind: row.kind as AuditEvent['kind'],
      tokenId: row.token_id,
      name: row.name,
      role: row.role,
      scope: row.scope,
      by: row.by_name,
      address: row.address,
      status: row.status,
      reason: row.reason,
      method: row.method,
      url: row.url,
      count: row.count,
      lastAt: row.last_at,
    }));
  }

  close(): void {
    this.db.close();
  }
}

/** A shell as listed from the record alone: ended (or, for this run's, as last written). */
function sessionOf(row: ShellRecord): SessionInfo {
  const ending: SessionEnding | null =
    row.ending_kind === null
      ? null
      : {
          kind: row.ending_kind as SessionEnding['kind'],
          exitCode: row.ending_exit_code,
          signal: row.ending_signal,
        };
  return {
    id: row.id,
    agent: row.agent,
    owner: row.owner,
    ...(row.owner_id === null ? {} : { ownerId: row.owner_id }),
    dialect: row.dialect as SessionInfo['dialect'],
    state: 'ended',
    command: null,
    since: null,
    lastExitCode: row.last_exit_code,
    pid: null,
    cols: row.cols,
    rows: row.rows,
    controller: null,
    viewers: 0,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    ending,
  };
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

function auditParams(row: AuditRow): Record<string, string | number | null> {
  return {
    ...NO_AUDIT_FIELDS,
    ...row.event,
    at: row.at,
    count: row.count ?? 1,
    lastAt: row.lastAt ?? null,
    bucket: row.bucket ?? null,
  };
}
