/**
 * History in the control plane's PostgreSQL (`--database`): the same rows as the SQLite file,
 * shared by every replica. A batch is one transaction of one statement per table (the rows
 * travel as one JSON array each, so a flush costs a handful of round trips whatever its size).
 * While the database is known to be away, reads and writes fail at once with
 * DatabaseUnavailable instead of waiting for a connection: History keeps rows in memory, the
 * routes answer 503, and the database's own probe says when it is back.
 */
import type {
  AuditEvent,
  AuditQuery,
  CallInfo,
  ControlEvent,
  SessionInfo,
} from '../../../shared/src/api.ts';
import { DatabaseUnavailable, type PostgresDatabase } from '../database/postgres-database.ts';
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
import { HistoryReplica, type ReplicaTimings } from './history-replicas.ts';
import {
  AUDIT_NOISE_KINDS,
  type AuditRow,
  auditParams,
  type HistoryStore,
  type WriteBatch,
} from './history-store.ts';

const UPSERT_SHELLS = `
  INSERT INTO history_shells (id, agent, owner, owner_id, dialect, started_at, cols, rows,
    last_exit_code, last_seen_at, ended_at, ending_kind, ending_exit_code, ending_signal,
    written_by)
  SELECT id, agent, owner, "ownerId", dialect, "startedAt", cols, rows, "lastExitCode", "seenAt",
    "endedAt", "endingKind", "endingExitCode", "endingSignal", $2
  FROM jsonb_to_recordset($1::jsonb) AS x(id text, agent text, owner text, "ownerId" text,
    dialect text, "startedAt" text, cols int, rows int, "lastExitCode" int, "seenAt" text,
    "endedAt" text, "endingKind" text, "endingExitCode" int, "endingSignal" text)
  ON CONFLICT (id) DO UPDATE SET agent = excluded.agent, owner = excluded.owner,
    owner_id = excluded.owner_id, cols = excluded.cols, rows = excluded.rows,
    last_exit_code = excluded.last_exit_code, last_seen_at = excluded.last_seen_at,
    ended_at = excluded.ended_at, ending_kind = excluded.ending_kind,
    ending_exit_code = excluded.ending_exit_code, ending_signal = excluded.ending_signal,
    written_by = excluded.written_by`;

const UPSERT_CALLS = `
  INSERT INTO history_calls (id, session_id, command, output, exit_code, outcome, started_at,
    duration_ms, controller, controller_token_id)
  SELECT id, "sessionId", command, output, "exitCode", outcome, "startedAt", "durationMs",
    controller, "controllerTokenId"
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(item, n),
    jsonb_to_record(e.item) AS x(id text, "sessionId" text,
    command text, output text, "exitCode" int, outcome text, "startedAt" text,
    "durationMs" float8, controller text, "controllerTokenId" text)
  ORDER BY e.n
  ON CONFLICT (id) DO UPDATE SET command = excluded.command, output = excluded.output,
    exit_code = excluded.exit_code, outcome = excluded.outcome, started_at = excluded.started_at,
    duration_ms = excluded.duration_ms, controller = excluded.controller,
    controller_token_id = excluded.controller_token_id`;

const INSERT_CONTROLS = `
  INSERT INTO history_control_events (session_id, at, kind, name, token_id, keys_recorded)
  SELECT "sessionId", at, kind, name, "tokenId", "keysRecorded"
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(item, n),
    jsonb_to_record(e.item) AS x("sessionId" text, at text, kind text,
    name text, "tokenId" text, "keysRecorded" int)
  ORDER BY e.n`;

const UPSERT_AUDITS = `
  INSERT INTO history_auth_events (at, kind, token_id, name, role, scope, by_name, address,
    status, reason, method, url, count, last_at, bucket)
  SELECT at, kind, "tokenId", name, role, scope, "by", address, status, reason, method, url,
    count, "lastAt", bucket
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(item, n),
    jsonb_to_record(e.item) AS x(at text, kind text, "tokenId" text,
    name text, role text, scope text, "by" text, address text, status int, reason text,
    method text, url text, count int, "lastAt" text, bucket text)
  ORDER BY e.n
  ON CONFLICT (bucket) DO UPDATE SET count = history_auth_events.count + excluded.count,
    last_at = excluded.last_at`;

const NOISE = AUDIT_NOISE_KINDS as readonly string[];

export class PostgresHistoryStore implements HistoryStore {
  private readonly replica: HistoryReplica;

  constructor(
    private readonly database: PostgresDatabase,
    onError: (error: unknown) => void = () => undefined,
    timings: ReplicaTimings = {},
  ) {
    this.replica = new HistoryReplica(database, onError, timings);
  }

  /** This replica's id, as its rows' `written_by`. */
  get replicaId(): string {
    return this.replica.id;
  }

  /** The rule for unfinished shells is history-replicas.ts's. */
  start(): Promise<void> {
    return this.replica.start();
  }

  async write(batch: WriteBatch): Promise<void> {
    this.ensureAvailable();
    const calls = lastById(batch.calls.map(callParams));
    await this.database.transaction(async (client) => {
      if (batch.shells.length > 0) {
        const shells = batch.shells.map(({ info, seenAt }) => shellParams(info, seenAt));
        await client.query(UPSERT_SHELLS, [JSON.stringify(shells), this.replica.id]);
      }
      if (calls.length > 0) await client.query(UPSERT_CALLS, [JSON.stringify(calls)]);
      if (batch.controls.length > 0) {
        const controls = batch.controls.map(({ sessionId, event }) => ({
          sessionId,
          at: event.at,
          kind: event.kind,
          name: event.name,
          tokenId: event.tokenId ?? null,
          keysRecorded: event.keysRecorded ? 1 : 0,
        }));
        await client.query(INSERT_CONTROLS, [JSON.stringify(controls)]);
      }
      if (batch.audits.length > 0) {
        const audits = mergeBuckets(batch.audits).map(auditParams);
        await client.query(UPSERT_AUDITS, [JSON.stringify(audits)]);
      }
    });
  }

  async capAudit(maxRows: number): Promise<number> {
    this.ensureAvailable();
    return this.database.transaction(async (client) => {
      const counted = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM history_auth_events',
      );
      const excess = Number(counted.rows[0]?.n ?? 0) - maxRows;
      if (excess <= 0) return 0;
      const noise = await client.query(
        `DELETE FROM history_auth_events WHERE id IN (SELECT id FROM history_auth_events
         WHERE kind = ANY($1) ORDER BY id LIMIT $2)`,
        [NOISE, excess],
      );
      const dropped = noise.rowCount ?? 0;
      if (dropped >= excess) return dropped;
      const rest = await client.query(
        `DELETE FROM history_auth_events WHERE id IN (SELECT id FROM history_auth_events
         ORDER BY id LIMIT $1)`,
        [excess - dropped],
      );
      return dropped + (rest.rowCount ?? 0);
    });
  }

  async forgetBefore(cutoff: string): Promise<number> {
    this.ensureAvailable();
    return this.database.transaction(async (client) => {
      const old = 'SELECT id FROM history_shells WHERE ended_at IS NOT NULL AND ended_at < $1';
      await client.query(`DELETE FROM history_calls WHERE session_id IN (${old})`, [cutoff]);
      await client.query(`DELETE FROM history_control_events WHERE session_id IN (${old})`, [
        cutoff,
      ]);
      await client.query('DELETE FROM history_auth_events WHERE at < $1', [cutoff]);
      const shells = await client.query(
        'DELETE FROM history_shells WHERE ended_at IS NOT NULL AND ended_at < $1',
        [cutoff],
      );
      return shells.rowCount ?? 0;
    });
  }

  async shells(): Promise<SessionInfo[]> {
    const rows = await this.read<ShellRecord>(
      'SELECT * FROM history_shells ORDER BY started_at DESC',
    );
    return rows.map(sessionOf);
  }

  async shell(id: string): Promise<SessionInfo | undefined> {
    const [row] = await this.read<ShellRecord>('SELECT * FROM history_shells WHERE id = $1', [id]);
    return row === undefined ? undefined : sessionOf(row);
  }

  async calls(sessionId: string): Promise<CallInfo[]> {
    const rows = await this.read<CallRecord>(
      'SELECT * FROM history_calls WHERE session_id = $1 ORDER BY started_at, seq',
      [sessionId],
    );
    return rows.map(callOf);
  }

  async controlEvents(sessionId: string): Promise<ControlEvent[]> {
    const rows = await this.read<ControlRecord>(
      `SELECT at, kind, name, token_id, keys_recorded FROM history_control_events
       WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    return rows.map(controlEventOf);
  }

  async auditEvents(query: AuditQuery): Promise<AuditEvent[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const param = (value: unknown): string => {
      params.push(value);
      return `$${params.length}`;
    };
    if (query.kinds !== undefined && query.kinds.length > 0)
      where.push(`kind = ANY(${param(query.kinds)})`);
    if (query.tokenId !== undefined) where.push(`token_id = ${param(query.tokenId)}`);
    // An aggregated row covers [at, last_at]: it matches a window it overlaps.
    if (query.since !== undefined) where.push(`coalesce(last_at, at) >= ${param(query.since)}`);
    if (query.until !== undefined) where.push(`at < ${param(query.until)}`);
    if (query.before !== undefined) where.push(`id < ${param(query.before)}`);
    const sql = `SELECT * FROM history_auth_events
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY id DESC LIMIT ${param(query.limit)}`;
    return (await this.read<AuditRecord>(sql, params)).map(auditEventOf);
  }

  async close(): Promise<void> {
    // The pool is the app's (closed after every store); this replica only stops beating.
    this.replica.stop();
  }

  private async read<Row extends object>(sql: string, params: unknown[] = []): Promise<Row[]> {
    this.ensureAvailable();
    return (await this.database.query<Row & Record<string, unknown>>(sql, params)).rows;
  }

  /** Fails at once while the database is known to be away (its probe says when it is back). */
  private ensureAvailable(): void {
    const { state } = this.database;
    if (!state.available) throw new DatabaseUnavailable(state.reason ?? 'it does not answer');
  }
}

/** One row per id, the latest (one statement may not update a row twice). */
function lastById<T extends { readonly id: string }>(rows: readonly T[]): T[] {
  return [...new Map(rows.map((row) => [row.id, row])).values()];
}

/**
 * Refusal rows of one bucket gathered by several flushes (kept while the database was away)
 * become one row, their counts added: one statement may not update a row twice.
 */
function mergeBuckets(rows: readonly AuditRow[]): AuditRow[] {
  const merged: AuditRow[] = [];
  const byBucket = new Map<string, number>();
  for (const row of rows) {
    const at = row.bucket === undefined ? undefined : byBucket.get(row.bucket);
    const earlier = at === undefined ? undefined : merged[at];
    if (earlier === undefined || at === undefined) {
      if (row.bucket !== undefined) byBucket.set(row.bucket, merged.length);
      merged.push(row);
      continue;
    }
    merged[at] = {
      ...earlier,
      count: (earlier.count ?? 1) + (row.count ?? 1),
      ...(row.lastAt === undefined ? {} : { lastAt: row.lastAt }),
    };
  }
  return merged;
}
