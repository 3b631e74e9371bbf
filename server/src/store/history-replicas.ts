/**
 * Which shells are still someone's, when several control planes share one PostgreSQL.
 *
 * The rule: a shell's row names the replica whose flush last wrote it (`written_by`), and each
 * replica beats (`history_replicas.heartbeat_at`, the database's clock) every
 * REPLICA_HEARTBEAT_MS. A shell left without an ending is ended (`server_stopped`, at the last
 * time anything of it was written) only once its writer has not beaten for REPLICA_STALE_MS.
 * So a replica starting never ends a live replica's shells; a replica that stops (cleanly or
 * `kill -9`) leaves its joined hosts' shells that long to link to another replica, whose first
 * flush writes the row as its own; and one that is ended anyway (its host came back later) is
 * written again with no ending, as the SQLite engine does. Every replica sweeps, at start and
 * with each beat; the sweep is one UPDATE, so replicas sweeping together do no harm.
 */
import { randomUUID } from 'node:crypto';
import { type PostgresDatabase, unavailableReason } from '../database/postgres-database.ts';

/** How often a replica says it is alive. */
export const REPLICA_HEARTBEAT_MS = 5000;
/**
 * A replica silent this long is gone: six beats, so a slow database or a long pause of the
 * event loop never ends a live replica's shells, and a joined host has time to link elsewhere.
 */
export const REPLICA_STALE_MS = 30_000;
/** Replicas gone this long, with nothing left unfinished, are forgotten. */
const REPLICA_FORGET_MS = 24 * 3600 * 1000;

export interface ReplicaTimings {
  readonly heartbeatMs?: number;
  readonly staleMs?: number;
}

export class HistoryReplica {
  /** This process's name in `written_by`; fresh per start (a restart is a new replica). */
  readonly id = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private readonly heartbeatMs: number;
  private readonly staleMs: number;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly onError: (error: unknown) => void,
    timings: ReplicaTimings = {},
  ) {
    this.heartbeatMs = timings.heartbeatMs ?? REPLICA_HEARTBEAT_MS;
    this.staleMs = timings.staleMs ?? REPLICA_STALE_MS;
  }

  /** Says this replica is alive, sweeps once, and goes on beating until `stop`. */
  async start(): Promise<void> {
    this.timer = setInterval(() => {
      // The database away is health's to say (once), not a failure every beat.
      this.beat().catch((error: unknown) => {
        if (unavailableReason(error) === undefined) this.onError(error);
      });
    }, this.heartbeatMs);
    this.timer.unref();
    await this.beat();
  }

  /**
   * Stops beating; the row stays, so this replica's unfinished shells are ended by the others'
   * sweeps only once it has been silent REPLICA_STALE_MS (see the rule above).
   */
  stop(): void {
    clearInterval(this.timer);
  }

  async beat(): Promise<void> {
    await this.database.query(
      `INSERT INTO history_replicas (id) VALUES ($1)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
      [this.id],
    );
    await this.sweep();
  }

  /** Ends the unfinished shells of replicas gone silent; returns how many. */
  async sweep(): Promise<number> {
    const ended = await this.database.query(
      `UPDATE history_shells s SET ended_at = s.last_seen_at, ending_kind = 'server_stopped'
       WHERE s.ended_at IS NULL AND s.written_by <> $1 AND NOT EXISTS (
         SELECT 1 FROM history_replicas r
         WHERE r.id = s.written_by AND r.heartbeat_at > now() - make_interval(secs => $2))`,
      [this.id, this.staleMs / 1000],
    );
    await this.database.query(
      `DELETE FROM history_replicas r
       WHERE r.heartbeat_at < now() - make_interval(secs => $1) AND NOT EXISTS (
         SELECT 1 FROM history_shells s WHERE s.written_by = r.id AND s.ended_at IS NULL)`,
      [REPLICA_FORGET_MS / 1000],
    );
    return ended.rowCount ?? 0;
  }
}
