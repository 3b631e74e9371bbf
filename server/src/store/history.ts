/**
 * Durable history (ARCHITECTURE.md, "Persistence"): every shell's description, calls, control
 * events and recording, and the auth audit, kept in the data dir across restarts. It subscribes
 * to the registry and the token store; nothing in the engine knows it exists. Everything is
 * gathered in memory and written every FLUSH_INTERVAL_MS: the rows in one transaction, the
 * recordings by a thread of their own (recording-worker.ts). The PTY path never waits for a
 * disk, and a crash loses at most that interval.
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
import type { StorageHealth } from '../ops/storage-health.ts';
import { DisposableStore, type Emitter } from '../pty/disposable.ts';
import type { ShellRegistry } from '../session/shell-registry.ts';
import { AuditGatherer } from './audit-gatherer.ts';
import { HistoryDatabase, type ShellRow } from './history-database.ts';
import { RecordingFiles } from './recording-files.ts';
import { RecordingThread } from './recording-thread.ts';
import { RowBacklog } from './row-backlog.ts';
import { type RecordedShell, ShellRecorder } from './shell-recorder.ts';

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
}

export class History {
  private readonly files: RecordingFiles;
  private readonly db: HistoryDatabase;
  private readonly thread: RecordingThread;
  private readonly recorders = new Map<string, ShellRecorder>();
  private readonly subscriptions = new DisposableStore();
  private readonly audits = new AuditGatherer();
  /** Rows the database could not take yet (a full disk), written with the next flush. */
  private readonly backlog = new RowBacklog();
  private writesFailing = false;
  private readonly flushTimer: NodeJS.Timeout;
  private readonly retentionTimer: NodeJS.Timeout;
  private retention: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** A flush asked for before the timer's (a shell's output backlog), not yet run. */
  private flushSoon: NodeJS.Immediate | undefined;

  constructor(private readonly options: HistoryOptions) {
    this.db = new HistoryDatabase(join(options.dataDir, HISTORY_DB_NAME));
    this.db.endUnfinished();
    const { settings } = options;
    const limits = {
      maxFileBytes: settings.recordingMaxFileBytes,
      maxTotalBytes: settings.recordingMaxTotalBytes,
      maxAgeDays: settings.recordingMaxAgeDays,
    };
    this.files = new RecordingFiles(join(options.dataDir, RECORDINGS_DIR_NAME), limits);
    this.thread = new RecordingThread(
      { dir: this.files.dir, limits },
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
      if (drained.touched) shells.push({ info: recorder.shell.info(), seenAt });
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
    if (shells.length + calls.length + controls.length + audits.length > 0 || !this.backlog.empty) {
      this.writeRows(this.backlog.with({ shells, calls, controls, audits }));
    }
    return this.thread.settled();
  }

  /** One transaction; what the disk refuses is kept (bounded) and tried again next flush. */
  private writeRows(batch: Parameters<HistoryDatabase['write']>[0]): void {
    const { health } = this.options;
    try {
      this.db.write(batch);
      this.backlog.clear();
      this.writesFailing = false;
      health?.recovered('history');
    } catch (error) {
      this.backlog.keep(batch);
      health?.failed('history', error, 'history database write');
      // Logged once per spell: the flush retries every half second.
      if (!this.writesFailing) this.options.onError?.(error, 'history database write');
      this.writesFailing = true;
    }
    health?.setBacklog('history', this.backlog.report());
    if (batch.audits.length === 0 || !this.backlog.empty) return;
    try {
      this.db.capAudit(this.options.settings.auditMaxRows);
    } catch (error) {
      this.options.onError?.(error, 'audit size cap');
    }
  }

  /**
   * `live`: the shells this server run lists (`live` being what the registry gives); `all`
   * adds every past shell on record, as `ended`; `ended` is `all` less those still running.
   */
  sessions(state: SessionListState, live: readonly SessionInfo[]): SessionInfo[] {
    if (state === 'live') return [...live];
    const listed = new Set(live.map((session) => session.id));
    const kept = this.backlog.shellsKept().map((row) => ({ ...row.info, state: 'ended' as const }));
    const onRecord = this.db.shells().filter((s) => !kept.some((k) => k.id === s.id));
    const past = [...kept, ...onRecord].filter((session) => !listed.has(session.id));
    const all = [...live, ...past];
    return state === 'all'
      ? all
      : all.filter((session) => session.state === 'exited' || session.state === 'ended');
  }

  /** A shell on record or followed now; undefined when history never saw it. */
  session(id: string): SessionInfo | undefined {
    return (
      this.recorders.get(id)?.shell.info() ??
      this.backlog.shellsKept().find((row) => row.info.id === id)?.info ??
      this.db.shell(id)
    );
  }

  /** The shell's calls, oldest first, with who held the controls; undefined for no such shell. */
  calls(id: string): CallInfo[] | undefined {
    const recorder = this.recorders.get(id);
    if (recorder === undefined && this.session(id) === undefined) return undefined;
    const written = this.db.calls(id);
    const kept = this.backlog.callsOf(id).filter((call) => !written.some((w) => w.id === call.id));
    return [...written, ...kept, ...(recorder?.pendingCalls ?? [])];
  }

  controlEvents(id: string): ControlEvent[] | undefined {
    const recorder = this.recorders.get(id);
    if (recorder === undefined && this.session(id) === undefined) return undefined;
    return [
      ...this.db.controlEvents(id),
      ...this.backlog.controlsOf(id),
      ...(recorder?.pendingControls ?? []),
    ];
  }

  /** The shell's asciicast up to now (a live one's gathered output is written first). */
  async recording(id: string): Promise<string | null> {
    // A shell let go at the last flush may have its last lines still on their way to disk.
    if (this.recorders.has(id)) await this.flush();
    else await this.thread.settled();
    return this.files.read(id);
  }

  /** The auth events `query` asks for, newest first (gathered ones written first). */
  async audit(query: AuditQuery): Promise<AuditEvent[]> {
    await this.flush();
    return this.db.auditEvents(query);
  }

  /**
   * Deletes recording files past the age and total-size caps (parts being written are kept),
   * and forgets shells that ended, and auth events, longer ago than the age cap.
   */
  applyRetention(now = Date.now()): Promise<string[]> {
    const active = new Set(this.recorders.keys());
    const cutoff = new Date(now - this.options.settings.recordingMaxAgeDays * MS_PER_DAY);
    const run = this.retention.then(() => {
      this.db.forgetBefore(cutoff.toISOString());
      return this.files.applyRetention(active, now);
    });
    this.retention = run.catch((error: unknown) => this.options.onError?.(error, 'retention'));
    return run;
  }

  /** Writes everything gathered (shells ended by the server's close included) and closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.flushTimer);
    clearInterval(this.retentionTimer);
    this.subscriptions.dispose();
    await this.flush();
    await this.retention;
    await this.thread.close();
    this.closed = true;
    const { keptItems } = this.backlog.report();
    if (keptItems > 0) this.options.health?.lostOnClose('history', keptItems);
    for (const recorder of this.recorders.values()) recorder.dispose();
    this.recorders.clear();
    this.db.close();
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
