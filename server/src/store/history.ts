/**
 * Durable history (ARCHITECTURE.md, "Persistence"): every shell's description, calls, control
 * events and recording, and the auth audit, kept across restarts in the data dir's SQLite file
 * or, with `--database`, in PostgreSQL (history-store.ts: one interface, two engines). It
 * subscribes to the registry and the token store; nothing in the engine knows it exists.
 * Everything is gathered in memory and written every FLUSH_INTERVAL_MS: the rows in one
 * transaction (one write at a time; what the engine refuses waits in a bounded backlog), the
 * recordings by a thread of their own (recording-worker.ts). The PTY path never waits for a
 * disk or a database, and a crash loses at most that interval.
 */
import { join } from 'node:path';
import type {
  AuditEvent,
  AuditQuery,
  CallInfo,
  ControlEvent,
  SessionInfo,
  SessionListState,
} from '../../../shared/src/api.ts';
import type { AuthEvent } from '../auth/auth-events.ts';
import type { HistorySettings } from '../config/config.ts';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import type { StorageHealth } from '../ops/storage-health.ts';
import { DisposableStore, type Emitter } from '../pty/disposable.ts';
import type { ShellRegistry } from '../session/shell-registry.ts';
import { AuditGatherer } from './audit-gatherer.ts';
import type { ReplicaTimings } from './history-replicas.ts';
import type { HistoryStore, ShellRow } from './history-store.ts';
import { PostgresHistoryStore } from './postgres-history-store.ts';
import { PostgresRecordingStore } from './postgres-recordings.ts';
import { RecordingFiles } from './recording-files.ts';
import { RecordingThread } from './recording-thread.ts';
import { RowBacklog } from './row-backlog.ts';
import { type RecordedShell, ShellRecorder } from './shell-recorder.ts';
import { SqliteHistoryStore } from './sqlite-history-store.ts';

/**
 * How often gathered history is written. Under a second, so a crash (`kill -9`) loses at most
 * the last second; long enough that a flood of output costs a few large writes, not many.
 */
export const FLUSH_INTERVAL_MS = 500;
const MS_PER_DAY = 24 * 3600 * 1000;
/** Retention runs at start and then this often (file ages are counted in days). */
const RETENTION_INTERVAL_MS = 10 * 60 * 1000;
const HISTORY_DB_NAME = 'history.db';
const RECORDINGS_DIR_NAME = 'recordings';

export interface HistoryOptions {
  readonly dataDir: string;
  readonly settings: HistorySettings;
  readonly registry: ShellRegistry;
  /** The auth side's audit events (the token store's `onAuthEvent`). */
  readonly authEvents?: Emitter<AuthEvent>;
  /** A write that failed (a full disk): reported, and the history goes on with later ones. */
  readonly onError?: (error: unknown, what: string) => void;
  /** Told when the disk refuses history rows or recording bytes, and when it takes them again. */
  readonly health?: StorageHealth;
  /** `--database`: the rows live in this PostgreSQL, shared with other replicas. */
  readonly database?: PostgresDatabase;
  /** The replicas' heartbeat (tests make it quick); history-replicas.ts has the rule. */
  readonly replicaTimings?: ReplicaTimings;
  /**
   * A live shell this replica knows but does not record (its host's link is another
   * replica's, which records it into the shared database, up to a flush later): its
   * description is this, so that who may see it is known at once.
   */
  readonly liveShell?: (id: string) => SessionInfo | undefined;
}

export class History {
  /** Where recordings are read back and aged out: the data dir's files or PostgreSQL. */
  private readonly recordings: Pick<RecordingFiles, 'read' | 'applyRetention'>;
  private readonly store: HistoryStore;
  private readonly thread: RecordingThread;
  private readonly recorders = new Map<string, ShellRecorder>();
  private readonly subscriptions = new DisposableStore();
  private readonly audits = new AuditGatherer();
  /** Rows not written yet: in flight, or refused (a full disk, no database) and waiting. */
  private readonly backlog = new RowBacklog();
  private writesFailing = false;
  /** The row writes, one after another (the engine's start first). */
  private writes: Promise<void>;
  private readonly flushTimer: NodeJS.Timeout;
  private readonly retentionTimer: NodeJS.Timeout;
  private retention: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** A flush asked for before the timer's (a shell's output backlog), not yet run. */
  private flushSoon: NodeJS.Immediate | undefined;

  constructor(private readonly options: HistoryOptions) {
    this.store =
      options.database === undefined
        ? new SqliteHistoryStore(join(options.dataDir, HISTORY_DB_NAME))
        : new PostgresHistoryStore(
            options.database,
            (error) => options.onError?.(error, 'history replica heartbeat'),
            options.replicaTimings,
          );
    // SQLite ends a stopped run's shells here and now; a failure (no database yet) is told
    // and the heartbeat tries again.
    this.writes = this.store
      .start()
      .catch((error: unknown) => options.onError?.(error, 'history start'));
    const { settings } = options;
    const limits = {
      maxFileBytes: settings.recordingMaxFileBytes,
      maxTotalBytes: settings.recordingMaxTotalBytes,
      maxAgeDays: settings.recordingMaxAgeDays,
    };
    const dir = join(options.dataDir, RECORDINGS_DIR_NAME);
    const { database } = options;
    this.recordings =
      database === undefined
        ? new RecordingFiles(dir, limits)
        : new PostgresRecordingStore(database, limits);
    this.thread = new RecordingThread(
      { dir, limits, ...(database === undefined ? {} : { databaseUrl: database.url.url }) },
      (message) => options.onError?.(new Error(message), 'recording'),
      (status) => {
        const { health } = options;
        if (health === undefined) return;
        health.setBacklog('recordings', status.backlog);
        if (status.failing === null) health.recovered('recordings');
        else {
          const { code, message } = status.failing;
          health.failed('recordings', Object.assign(new Error(message), { code }), 'recording');
        }
      },
    );
    for (const shell of options.registry.shells()) this.follow(shell);
    this.subscriptions.add(options.registry.onShellAdded.on((shell) => this.follow(shell)));
    if (options.authEvents) {
      this.subscriptions.add(options.authEvents.on((event) => this.audits.add(event)));
    }
    this.flushTimer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.flushTimer.unref();
    this.retentionTimer = setInterval(() => void this.applyRetention(), RETENTION_INTERVAL_MS);
    this.retentionTimer.unref();
    void this.applyRetention();
  }

  /**
   * Writes what gathered: the rows in one transaction now, the recording events sent to the
   * recording thread; resolves when those are on disk. Shells that ended are written a last
   * time and let go.
   */
  flush(): Promise<void> {
    clearImmediate(this.flushSoon);
    this.flushSoon = undefined;
    if (this.closed) return Promise.resolve();
    const seenAt = new Date().toISOString();
    const shells: ShellRow[] = [];
    const calls: CallInfo[] = [];
    const controls: { sessionId: string; event: ControlEvent }[] = [];
    for (const [id, recorder] of this.recorders) {
      const ended = recorder.ended;
      const drained = recorder.drain();
      if (drained.events.length > 0 || ended) {
        const { header } = recorder;
        this.thread.send(
          { type: 'append', id, header, events: drained.events, ended },
          drained.transfer,
        );
      }
      if (drained.touched) shells.push({ info: recorder.description(), seenAt });
      calls.push(...drained.calls);
      for (const event of drained.controls) controls.push({ sessionId: id, event });
      if (ended) {
        recorder.dispose();
        this.recorders.delete(id);
      }
    }
    const audits = this.audits.take();
    this.backlog.countDropped(this.audits.dropped);
    this.audits.dropped = 0;
    this.backlog.add({ shells, calls, controls, audits });
    if (!this.backlog.empty) this.writes = this.writes.then(() => this.writeRows());
    return Promise.all([this.writes, this.thread.settled()]).then(() => undefined);
  }

  /**
   * Writes what waits in one transaction; what the engine refuses waits again (bounded) and is
   * tried with the next flush.
   */
  private async writeRows(): Promise<void> {
    // An earlier write in this chain took everything already.
    if (this.backlog.empty) return;
    const { health } = this.options;
    const batch = this.backlog.take();
    try {
      await this.store.write(batch);
      this.backlog.landed();
      this.writesFailing = false;
      health?.recovered('history');
    } catch (error) {
      this.backlog.putBack();
      health?.failed('history', error, 'history database write');
      // Logged once per spell: the flush retries every half second.
      if (!this.writesFailing) this.options.onError?.(error, 'history database write');
      this.writesFailing = true;
    }
    health?.setBacklog('history', this.backlog.report());
    if (batch.audits.length === 0 || !this.backlog.empty) return;
    try {
      await this.store.capAudit(this.options.settings.auditMaxRows);
    } catch (error) {
      this.options.onError?.(error, 'audit size cap');
    }
  }

  /**
   * `live`: the shells this server run lists (`live` being what the registry gives); `all`
   * adds every past shell on record, as `ended`; `ended` is `all` less those still running.
   * Past shells come from the database: DatabaseUnavailable while it is away.
   */
  async sessions(state: SessionListState, live: readonly SessionInfo[]): Promise<SessionInfo[]> {
    if (state === 'live') return [...live];
    const listed = new Set(live.map((session) => session.id));
    // What waits in memory first: a row that lands while the database is read is in one of them.
    const kept = this.backlog.shellsKept().map((row) => ({ ...row.info, state: 'ended' as const }));
    const onRecord = (await this.store.shells()).filter((s) => !kept.some((k) => k.id === s.id));
    const past = [...kept, ...onRecord].filter((session) => !listed.has(session.id));
    const all = [...live, ...past];
    return state === 'all'
      ? all
      : all.filter((session) => session.state === 'exited' || session.state === 'ended');
  }

  /** A shell on record or followed now; undefined when history never saw it. */
  async session(id: string): Promise<SessionInfo | undefined> {
    return (
      this.recorders.get(id)?.shell.info() ??
      this.options.liveShell?.(id) ??
      this.backlog.shellsKept().find((row) => row.info.id === id)?.info ??
      (await this.store.shell(id))
    );
  }

  /** The shell's calls, oldest first, with who held the controls; undefined for no such shell. */
  async calls(id: string): Promise<CallInfo[] | undefined> {
    const recorder = this.recorders.get(id);
    const waiting = [...this.backlog.callsOf(id), ...(recorder?.pendingCalls ?? [])];
    if (recorder === undefined && (await this.session(id)) === undefined) return undefined;
    const written = await this.store.calls(id);
    const ids = new Set(written.map((call) => call.id));
    return [...written, ...waiting.filter((call) => !ids.has(call.id))];
  }

  async controlEvents(id: string): Promise<ControlEvent[] | undefined> {
    const recorder = this.recorders.get(id);
    const waiting = [...this.backlog.controlsOf(id), ...(recorder?.pendingControls ?? [])];
    if (recorder === undefined && (await this.session(id)) === undefined) return undefined;
    const written = await this.store.controlEvents(id);
    // Events have no id: one that landed while the database was read is known by its content.
    const seen = new Set(written.map(controlKey));
    return [...written, ...waiting.filter((event) => !seen.has(controlKey(event)))];
  }

  /** The shell's asciicast up to now (a live one's gathered output is written first). */
  async recording(id: string): Promise<string | null> {
    // A shell let go at the last flush may have its last lines still on their way to disk.
    if (this.recorders.has(id)) await this.flush();
    else await this.thread.settled();
    return this.recordings.read(id);
  }

  /** The auth events `query` asks for, newest first (gathered ones written first). */
  async audit(query: AuditQuery): Promise<AuditEvent[]> {
    await this.flush();
    return this.store.auditEvents(query);
  }

  /**
   * Deletes recording parts past the age and total-size caps (parts being written are kept),
   * and forgets shells that ended, and auth events, longer ago than the age cap.
   */
  applyRetention(now = Date.now()): Promise<string[]> {
    const active = new Set(this.recorders.keys());
    const cutoff = new Date(now - this.options.settings.recordingMaxAgeDays * MS_PER_DAY);
    const run = this.retention.then(async () => {
      await this.store.forgetBefore(cutoff.toISOString());
      return this.recordings.applyRetention(active, now);
    });
    this.retention = run.catch((error: unknown) => this.options.onError?.(error, 'retention'));
    return run;
  }

  /**
   * The server's stop begins: each of its own shells still alive (the registry's; a joined
   * host's live on) is recorded `closed` at this moment, written now. So a stop that takes
   * long, or gives up, never leaves them to be found unfinished (`server_stopped`).
   */
  stopping(at = new Date()): Promise<void> {
    const { registry } = this.options;
    for (const [id, recorder] of this.recorders) {
      if (registry.find(id) !== undefined) recorder.closedByStop(at);
    }
    return this.flush();
  }

  /** Writes everything gathered (shells ended by the server's close included) and closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.flushTimer);
    clearInterval(this.retentionTimer);
    this.subscriptions.dispose();
    await this.flush();
    await this.writes;
    await this.retention;
    await this.thread.close();
    this.closed = true;
    const { keptItems } = this.backlog.report();
    if (keptItems > 0) this.options.health?.lostOnClose('history', keptItems);
    for (const recorder of this.recorders.values()) recorder.dispose();
    this.recorders.clear();
    await this.store.close();
  }

  /**
   * Stops following a host's shell another replica records now (its host's link moved there):
   * what was heard of it here is written, and nothing more, so its rows are never written by
   * both replicas. It is not ended: it lives on there.
   */
  unfollow(id: string): Promise<void> {
    const recorder = this.recorders.get(id);
    if (recorder === undefined) return Promise.resolve();
    recorder.dispose();
    return this.flush().finally(() => {
      if (this.recorders.get(id) === recorder) this.recorders.delete(id);
    });
  }

  /** Follows a shell (the registry's are followed from the start; a host's, when it joins). */
  follow(shell: RecordedShell): void {
    if (this.recorders.has(shell.id) || !shell.alive) return;
    this.recorders.set(
      shell.id,
      new ShellRecorder(shell, this.options.settings.recordKeystrokes, () => {
        // Not inside the PTY's listener: right after the current burst of events.
        this.flushSoon ??= setImmediate(() => void this.flush());
      }),
    );
  }
}

function controlKey(event: ControlEvent): string {
  return JSON.stringify([event.at, event.kind, event.name, event.tokenId ?? null]);
}
