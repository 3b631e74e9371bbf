/**
 * Host drains with `--database`: a drained host is a row of `host_drains`, every replica keeps
 * the names in memory (placement asks on each call) and hears the others' changes at once
 * (LISTEN/NOTIFY on HOSTS_CHANNEL; the listener reloads that host's row). A forget is a row of
 * `host_forgets` whose number grows at each forget of that name. When the LISTEN connection
 * comes back, what was announced meanwhile is lost: every drain is read again, and each host
 * forgotten since (its number is not the one this replica knew) is forgotten here too. A change
 * is committed, and announced in the same transaction, before it takes effect, so a drain
 * outlives every replica's restart; while the database is away it is refused with 503
 * DATABASE_UNAVAILABLE and the drains known stay as they are.
 */
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { refusedForDatabase } from '../database/database-refusal.ts';
import { type PostgresDatabase, unavailableReason } from '../database/postgres-database.ts';
import { type Disposable, DisposableStore, Emitter } from '../pty/disposable.ts';
import type { HostDrains } from './host-drains.ts';

const FORGET_SQL = `
  INSERT INTO host_forgets (name) VALUES ($1)
  ON CONFLICT (name) DO UPDATE SET seq = nextval('host_forgets_seq'), forgotten_at = now()
  RETURNING seq`;

/** The NOTIFY channel of drains and forgets; the payload is a HostChange as JSON. */
export const HOSTS_CHANNEL = 'jumpseat_hosts';

const HostChange = Type.Object({
  host: Type.String(),
  forgotten: Type.Boolean(),
});
type HostChange = Static<typeof HostChange>;

export class PostgresHostDrains implements HostDrains {
  private drained = new Set<string>();
  /** Each forgotten host's number (host_forgets.seq) as this replica last applied it. */
  private forgets = new Map<string, string>();
  private readonly forgotten = new Emitter<string>();
  private readonly listening = new DisposableStore();
  /** Reloads run one after another, so an older row never lands after a newer one. */
  private reloading: Promise<void> = Promise.resolve();

  private constructor(private readonly database: PostgresDatabase) {}

  /** Every drain kept, then listening for the other replicas' changes. */
  static async open(database: PostgresDatabase): Promise<PostgresHostDrains> {
    const drains = new PostgresHostDrains(database);
    drains.drained = await drains.load();
    // Forgets made before this start are no news: the hosts it will hear of joined since.
    drains.forgets = await drains.loadForgets();
    drains.listening.add(await database.listen(HOSTS_CHANNEL, (payload) => drains.heard(payload)));
    drains.listening.add(database.onListenReconnect(() => drains.queue(() => drains.resync())));
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
    const seq = await this.commit(
      'DELETE FROM host_drains WHERE name = $1',
      { host: name, forgotten: true },
      `forgetting host ${name}`,
    );
    this.drained.delete(name);
    if (seq !== undefined) this.forgets.set(name, seq);
  }

  onForget(listener: (name: string) => void): Disposable {
    return this.forgotten.on(listener);
  }

  close(): void {
    this.listening.dispose();
    this.forgotten.clear();
  }

  /** Runs `sql` and the announcement in one transaction; a forget's new number. */
  private async commit(sql: string, change: HostChange, what: string): Promise<string | undefined> {
    try {
      return await this.database.transaction(async (client) => {
        await client.query(sql, [change.host]);
        const seq = change.forgotten
          ? (await client.query<{ seq: string }>(FORGET_SQL, [change.host])).rows[0]?.seq
          : undefined;
        // Delivered at COMMIT, and only if it commits.
        await client.query('SELECT pg_notify($1, $2)', [HOSTS_CHANNEL, JSON.stringify(change)]);
        return seq;
      });
    } catch (error) {
      throw refusedForDatabase(error, what);
    }
  }

  private async load(): Promise<Set<string>> {
    const { rows } = await this.database.query<{ name: string }>('SELECT name FROM host_drains');
    return new Set(rows.map((row) => row.name));
  }

  private async loadForgets(): Promise<Map<string, string>> {
    const { rows } = await this.database.query<{ name: string; seq: string }>(
      'SELECT name, seq FROM host_forgets',
    );
    return new Map(rows.map((row) => [row.name, row.seq]));
  }

  /** After the LISTEN connection came back: every drain again, and each forget missed. */
  private async resync(): Promise<void> {
    this.drained = await this.load();
    const forgets = await this.loadForgets();
    const missed = [...forgets].filter(([name, seq]) => this.forgets.get(name) !== seq);
    this.forgets = forgets;
    for (const [name] of missed) this.forgotten.fire(name);
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
      const { rows } = await this.database.query<{ drained: boolean; seq: string | null }>(
        `SELECT EXISTS (SELECT 1 FROM host_drains WHERE name = $1) AS drained,
                (SELECT seq FROM host_forgets WHERE name = $1) AS seq`,
        [change.host],
      );
      const [row] = rows;
      if (row?.drained === true) this.drained.add(change.host);
      else this.drained.delete(change.host);
      // Applied already: a reconnection's resync does not forget the host a second time.
      if (row?.seq != null) this.forgets.set(change.host, row.seq);
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
