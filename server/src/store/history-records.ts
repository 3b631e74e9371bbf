/**
 * History's rows as both engines store them (the same columns in SQLite and PostgreSQL) and
 * how each becomes the API's shape, so a shell, call or audit event reads back the same from
 * either engine.
 */
import type {
  AuditEvent,
  CallInfo,
  ControlEvent,
  SessionEnding,
  SessionInfo,
} from '../../../shared/src/api.ts';

export interface ShellRecord {
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

export interface CallRecord {
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

export interface ControlRecord {
  at: string;
  kind: string;
  name: string;
  token_id: string | null;
  keys_recorded: number;
}

export interface AuditRecord {
  /** PostgreSQL's bigint arrives as a string. */
  id: number | string;
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

/** A shell as listed from the record alone: ended (or, for this run's, as last written). */
export function sessionOf(row: ShellRecord): SessionInfo {
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

export function callOf(row: CallRecord): CallInfo {
  return {
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
  };
}

export function controlEventOf(row: ControlRecord): ControlEvent {
  return {
    at: row.at,
    kind: row.kind as ControlEvent['kind'],
    name: row.name,
    tokenId: row.token_id,
    keysRecorded: row.keys_recorded === 1,
  };
}

export function auditEventOf(row: AuditRecord): AuditEvent {
  return {
    id: Number(row.id),
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
  };
}

/** The shell columns of a row to write, by name (`@name` in SQLite, `$n` in PostgreSQL). */
export function shellParams(info: SessionInfo, seenAt: string) {
  return {
    id: info.id,
    agent: info.agent,
    owner: info.owner,
    ownerId: info.ownerId ?? null,
    dialect: info.dialect,
    startedAt: info.startedAt,
    cols: info.cols,
    rows: info.rows,
    lastExitCode: info.lastExitCode,
    seenAt,
    endedAt: info.endedAt,
    endingKind: info.ending?.kind ?? null,
    endingExitCode: info.ending?.exitCode ?? null,
    endingSignal: info.ending?.signal ?? null,
  };
}

export function callParams(call: CallInfo) {
  return {
    id: call.id,
    sessionId: call.sessionId,
    command: call.command,
    output: call.output,
    exitCode: call.exitCode,
    outcome: call.outcome,
    startedAt: call.startedAt,
    durationMs: call.durationMs,
    controller: call.controller ?? null,
    controllerTokenId: call.controllerTokenId ?? null,
  };
}
