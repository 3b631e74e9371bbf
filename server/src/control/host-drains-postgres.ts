/**
 * Host drains with `--database`: a drained host is a row of `host_drains`, every replica keeps
 * the names in memory (placement asks on each call) and hears the others' changes at once
 * (LISTEN/NOTIFY on HOSTS_CHANNEL; the listener reloads that host's row, and every row when its
 * connection came back). A change is committed, and announced in the same transaction, before
 * it takes effect, so a drain outlives every replica's restart; while the database is away it
 * is refused with 503 DATABASE_UNAVAILABLE and the drains known stay as they are.
 */
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { refusedForDatabase } from '../database/database-refusal.ts';
import { type PostgresDatabase, unavailableReason } from '../database/postgres-database.ts';
import type { PostgresMigration } from '../database/postgres-migrations.ts';
import { type Disposable, DisposableStore, Emitter } from '../pty/disposable.ts';
import type { HostDrains } from './host-drains.ts';

export const HOST_MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'hosts-1',
    sql: `
      CREATE TABLE host_drains (
        name TEXT PRIMARY KEY,
        drained_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `,
  },
];

/** The NOTIFY channel of drains and forgets; the payload is a HostChange as JSON. */
export const HOSTS_CHANNEL = 'jumpseat_hosts';

const HostChange = Type.Object({
  host: Type.String(),
  forgotten: Type.Boolean(),
});
type HostChange = Static<typeof HostChange>;

export class PostgresHostDrains implements HostDrains {
  private drained = new Set<string>();
  private readonly forgotten = new Emitter<string>();
  private readonly listening = new DisposableStore();
  /** Reloads run one after another, so an older row never lands after a newer one. */
  private reloading: Promise<void> = Promise.resolve();

  private constructor(private readonly database: PostgresDatabase) {}

  /** Every drain kept, then listening for the other replicas' changes. */
  static async open(database: PostgresDatabase): Promise<PostgresHostDrains> {
    const drains = new PostgresHostDrains(database);
    drains.drained = await drains.load();
    drains.listening.add(await database.listen(HOSTS_CHANNEL, (payload) => drains.heard(payload)));
    drains.listening.add(
      database.onListenReconnect(() =>
        drains.queue(async () => {
          drains.drained = await drains.load();
        }),
      ),
    );
    return drains;
  }

  has(name: string): boolean {
    return this.drained.has(name);
  }

  async drain(name: string): Promise<void> {
    await this.commit(
      'INSERT INTO host_drains (name) VALUES ($1) ON CONFLICT (name) DO NOTHING',
      { host: name, forgotten: false },
      `the drain of host ${name}`,
    );
    this.drained.add(name);
  }

  async undrain(name: string): Promise<void> {
    await this.commit(
      'DELETE FROM host_drains WHERE name = $1',
      { host: name, forgotten: false },
      `the end of host ${name}'s drain`,
    );
    this.drained.delete(name);
  }

  async forget(name: string): Promise<void> {
    await this.commit(
      'DELETE FROM host_drains WHERE name = $1',
      { host: name, forgotten: true },
      `forgetting host ${name}`,
    );
    this.drained.delete(name);
  }

  onForget(listener: (name: string) => void): Disposable {
    return this.forgotten.on(listener);
  }

  close(): void {
    this.listening.dispose();
    this.forgotten.clear();
  }

  private async commit(sql: string, change: HostChange, what: string): Promise<void> {
    try {
      await this.database.transaction(async (client) => {
        await client.query(sql, [change.host]);
        // Delivered at COMMIT, and only if it commits.
        await client.query('SELECT pg_notify($1, $2)', [HOSTS_CHANNEL, JSON.stringify(change)]);
      });
    } catch (error) {
      throw refusedForDatabase(error, what);
    }
  }

  private async load(): Promise<Set<string>> {
    const { rows } = await this.database.query<{ name: string }>('SELECT name FROM host_drains');
    return new Set(rows.map((row) => row.name));
  }

  private heard(payload: string): void {
    let change: unknown;
    try {
      change = JSON.parse(payload);
    } catch {
      change = undefined;
    }
    if (!Value.Check(HostChange, change)) {
      process.emitWarning(`${HOSTS_CHANNEL} carried a payload that is not a host change`);
      return;
    }
    if (change.forgotten) this.forgotten.fire(change.host);
    this.queue(async () => {
      const { rows } = await this.database.query('SELECT 1 FROM host_drains WHERE name = $1', [
        change.host,
      ]);
      if (rows.length > 0) this.drained.add(change.host);
      else this.drained.delete(change.host);
    });
  }

  private queue(work: () => Promise<void>): void {
    this.reloading = this.reloading.then(work).catch((error: unknown) => {
      // The row is reloaded on the next notification or reconnection.
      if (unavailableReason(error) === undefined) {
        process.emitWarning(`reloading host drains failed: ${String(error)}`);
      }
    });
  }
}
