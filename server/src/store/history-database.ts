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
  SessionInfo,
} from '../../../shared/src/api.ts';
import {
  type AuditRecord,
  auditEventOf,
  type CallRecord,
  type ControlRecord,
  callOf,
  callParams,
  controlEventOf,
  type ShellRecord,
  sessionOf,
  shellParams,
} from './history-records.ts';
import { AUDIT_NOISE_KINDS, auditParams, type WriteBatch } from './history-store.ts';
import { migrate } from './migrations.ts';

const DB_FILE_MODE = 0o600;
/** Lets a busy reader (another process, a backup) hold the file this long before a write fails. */
const BUSY_TIMEOUT_MS = 5000;

/** Kinds the audit's size cap drops first, as an SQL list. */
const NOISE_KINDS = `(${AUDIT_NOISE_KINDS.map((kind) => `'${kind}'`).join(', ')})`;

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
        this.statements.upsertShell.run(shellParams(info, seenAt));
      }
      for (const call of batch.calls) this.statements.insertCall.run(callParams(call));
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
    return (this.statements.calls.all(sessionId) as CallRecord[]).map(callOf);
  }

  controlEvents(sessionId: string): ControlEvent[] {
    return (this.statements.controls.all(sessionId) as ControlRecord[]).map(controlEventOf);
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
    return (this.db.prepare(sql).all(...params, query.limit) as AuditRecord[]).map(auditEventOf);
  }

  close(): void {
    this.db.close();
  }
}
