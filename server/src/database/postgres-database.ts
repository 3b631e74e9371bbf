/**
 * The control plane's PostgreSQL (`--database postgres://…`): one `pg` pool shared by every
 * store, whether the database answers now (`available`, for `/healthz` and the 503
 * `DATABASE_UNAVAILABLE` of routes that need it), and LISTEN/NOTIFY on a connection of its own
 * that comes back by itself, so that replicas hear each other's changes (README, "High
 * availability"). Stores keep working from memory while the database is away and write what
 * waited when it is back; this module only tells them which of the two it is.
 */
import pg from 'pg';
import { type Disposable, Emitter } from '../pty/disposable.ts';
import type { DatabaseUrl } from './database-url.ts';

/** A query that failed because the database cannot be reached, not because of the query. */
export class DatabaseUnavailable extends Error {
  /** What storage health reports as the failing area's code (ops/storage-health.ts). */
  readonly code = 'DATABASE_UNAVAILABLE';

  constructor(readonly reason: string) {
    super(`the database is unavailable: ${reason}`);
    this.name = 'DatabaseUnavailable';
  }
}

/** Node error codes and SQLSTATE classes that mean "no database now", not a bad statement. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
// 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now;
// 53300: too many connections.
const CONNECTION_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** The reason a failure is the database's absence, or undefined for any other error. */
export function unavailableReason(error: unknown): string | undefined {
  if (error instanceof DatabaseUnavailable) return error.reason;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || CONNECTION_SQLSTATE.test(code))) {
    return `${code}: ${text}`;
  }
  // pg's own words for a connection that went away or never came.
  if (
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      text,
    )
  ) {
    return text;
  }
  return undefined;
}

export interface DatabaseHealth {
  readonly available: boolean;
  /** Why not, while unavailable (no password: driver messages never carry it). */
  readonly reason: string | null;
  readonly since: string;
}

export interface PostgresOptions {
  /** Connections in the pool (10). */
  readonly maxConnections?: number;
  /** How long a new connection may take before the database counts as unavailable (5 s). */
  readonly connectTimeoutMs?: number;
  /** How often a LISTEN connection that dropped tries again (first, doubling to 5 s). */
  readonly listenRetryMs?: number;
}

type Notify = (payload: string) => void;

const LISTEN_RETRY_MAX_MS = 5000;
/** While unavailable, a probe query runs this often so health turns back without a request. */
const PROBE_INTERVAL_MS = 1000;

export class PostgresDatabase {
  readonly pool: pg.Pool;
  private health: DatabaseHealth = {
    available: true,
    reason: null,
    since: new Date().toISOString(),
  };
  private readonly healthChanged = new Emitter<DatabaseHealth>();
  private readonly channels = new Map<string, Set<Notify>>();
  private readonly resynced = new Emitter<void>();
  private listener: pg.Client | undefined;
  private listenRetry: NodeJS.Timeout | undefined;
  /** The LISTEN connection being made, if one is (never two at a time). */
  private listenConnecting: Promise<void> | undefined;
  private probe: NodeJS.Timeout | undefined;
  private closed = false;
  private everListened = false;

  constructor(
    readonly url: DatabaseUrl,
    private readonly options: PostgresOptions = {},
  ) {
    this.pool = new pg.Pool({
      connectionString: url.url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      idleTimeoutMillis: 30_000,
      application_name: 'jumpseat',
    });
    // An idle client whose server went away: without a listener, pg's 'error' ends the process.
    this.pool.on('error', (error) => this.failed(error));
  }

  onHealthChange(listener: (health: DatabaseHealth) => void): Disposable {
    return this.healthChanged.on(listener);
  }

  /** After the LISTEN connection came back: notifications may have been missed meanwhile. */
  onListenReconnect(listener: () => void): Disposable {
    return this.resynced.on(listener);
  }

  get state(): DatabaseHealth {
    return this.health;
  }

  /** One statement; a connection failure marks the database unavailable and throws DatabaseUnavailable. */
  async query<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: readonly unknown[],
  ): Promise<pg.QueryResult<Row>> {
    try {
      const result = await this.pool.query<Row>(text, values as unknown[] | undefined);
      this.succeeded();
      return result;
    } catch (error) {
      throw this.failed(error);
    }
  }

  /** `work` inside BEGIN … COMMIT on one connection; rolled back if it throws. */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.failed(error);
    }
    let broken = false;
    // A checked-out connection has no listener of the pool's: one that breaks between two
    // statements would emit an unheard 'error' and end the process.
    const onError = (error: unknown) => {
      broken = true;
      this.failed(error);
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      this.succeeded();
      return result;
    } catch (error) {
      broken ||= unavailableReason(error) !== undefined;
      if (!broken) await client.query('ROLLBACK').catch(() => undefined);
      throw this.failed(error);
    } finally {
      client.release(broken);
      // A broken one is thrown away, still heard: its socket may say more.
      if (!broken) client.removeListener('error', onError);
    }
  }

  /** Tells every replica listening on `channel` (payload under 8000 bytes, as PostgreSQL asks). */
  async notify(channel: string, payload: string): Promise<void> {
    await this.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  /**
   * Calls `handler` with each notification on `channel`, from this replica and every other.
   * After the listening connection drops and comes back, `onListenReconnect` fires: what was
   * sent meanwhile is lost, so a cache reloads then.
   */
  async listen(channel: string, handler: Notify): Promise<Disposable> {
    let handlers = this.channels.get(channel);
    if (handlers === undefined) {
      handlers = new Set();
      this.channels.set(channel, handlers);
      if (this.listener !== undefined)
        await this.listener.query(`LISTEN ${quoteIdentifier(channel)}`);
    }
    handlers.add(handler);
    await this.startListener();
    return {
      dispose: () => {
        handlers.delete(handler);
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.listenRetry);
    clearInterval(this.probe);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
    this.healthChanged.clear();
    this.resynced.clear();
  }

  private startListener(): Promise<void> {
    if (this.listener !== undefined || this.closed) return Promise.resolve();
    return this.connectListener(this.options.listenRetryMs ?? 250);
  }

  private connectListener(retryMs: number): Promise<void> {
    this.listenConnecting ??= this.makeListener(retryMs).finally(() => {
      this.listenConnecting = undefined;
    });
    return this.listenConnecting;
  }

  /**
   * The database answers again while the LISTEN connection is still away, its next try up to
   * LISTEN_RETRY_MAX_MS off: try now, so the caches re-read what they missed (onListenReconnect)
   * about when the database is back, not seconds later.
   */
  private listenAgainNow(): void {
    if (this.closed || this.listenConnecting !== undefined || this.listener !== undefined) return;
    if (!this.everListened) return;
    clearTimeout(this.listenRetry);
    this.connectListener(this.options.listenRetryMs ?? 250).catch(() => undefined);
  }

  private async makeListener(retryMs: number): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url.url,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? 5000,
      application_name: 'jumpseat-listen',
    });
    client.on('notification', (message) => {
      for (const handler of this.channels.get(message.channel) ?? []) {
        try {
          handler(message.payload ?? '');
        } catch (error) {
          // One store's bug never stops the others hearing.
          process.emitWarning(`a database notification handler failed: ${String(error)}`);
        }
      }
    });
    const retry = () => {
      if (this.closed) return;
      clearTimeout(this.listenRetry);
      this.listenRetry = setTimeout(() => {
        this.connectListener(Math.min(retryMs * 2, LISTEN_RETRY_MAX_MS)).catch(() => undefined);
      }, retryMs);
      this.listenRetry.unref();
    };
    client.on('error', (error) => {
      this.failed(error);
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => undefined);
      retry();
    });
    client.on('end', () => {
      if (this.listener === client) {
        this.listener = undefined;
        retry();
      }
    });
    try {
      await client.connect();
      for (const channel of this.channels.keys())
        await client.query(`LISTEN ${quoteIdentifier(channel)}`);
    } catch (error) {
      this.failed(error);
      client.end().catch(() => undefined);
      retry();
      return;
    }
    if (this.closed || this.listener !== undefined) {
      await client.end().catch(() => undefined);
      return;
    }
    const reconnected = this.listener === undefined && this.everListened;
    this.listener = client;
    this.everListened = true;
    this.succeeded();
    if (reconnected) this.resynced.fire();
  }

  private succeeded(): void {
    if (this.health.available) return;
    clearInterval(this.probe);
    this.probe = undefined;
    this.setHealth({ available: true, reason: null, since: new Date().toISOString() });
    this.listenAgainNow();
  }

  /** Returns what to throw: DatabaseUnavailable for a connection failure, else the error itself. */
  private failed(error: unknown): unknown {
    const reason = unavailableReason(error);
    if (reason === undefined) return error;
    if (this.health.available) {
      this.setHealth({ available: false, reason, since: new Date().toISOString() });
      this.probe = setInterval(() => {
        this.query('SELECT 1').catch(() => undefined);
      }, PROBE_INTERVAL_MS);
      this.probe.unref();
    }
    return error instanceof DatabaseUnavailable ? error : new DatabaseUnavailable(reason);
  }

  private setHealth(health: DatabaseHealth): void {
    this.health = health;
    this.healthChanged.fire(health);
  }
}

/** A channel name as an SQL identifier (LISTEN takes no bound parameter). */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
