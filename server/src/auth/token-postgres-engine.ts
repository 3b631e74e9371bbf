/**
 * The token store's engine with `--database`: each token is a row of `auth_tokens`, every
 * replica keeps them all in memory and hears the others' changes (LISTEN/NOTIFY on
 * TOKENS_CHANNEL, the token's id as payload; the listener reloads that row, and everything
 * when its connection came back). A change is committed, and announced in the same
 * transaction, before it takes effect; while the database is unreachable it is refused with
 * 503 DATABASE_UNAVAILABLE and the tokens known keep working. Last uses wait and go in batches.
 */
import { Value } from 'typebox/value';
import { refusedForDatabase } from '../database/database-refusal.ts';
import { type PostgresDatabase, unavailableReason } from '../database/postgres-database.ts';
import { type Disposable, DisposableStore, Emitter } from '../pty/disposable.ts';
import { PostgresRenameLimit } from './rename-limit-postgres.ts';
import type { RemoteChange, TokenEngine, TokenWrite } from './token-engine.ts';
import { TokenRecord } from './token-file.ts';

/** The NOTIFY channel of token changes; the payload is the changed token's id. */
export const TOKENS_CHANNEL = 'jumpseat_tokens';
/** Last uses noted meanwhile are written together this often (a request is not a write). */
const LAST_USE_BATCH_MS = 1000;
/** Last uses a database that is away can make wait; past it the oldest are dropped. */
const MAX_WAITING_LAST_USES = 10_000;

const WHAT: Record<TokenWrite['kind'], string> = {
  insert: 'the new token',
  patch: 'the change to the token',
  remove: 'the removal of ended share links',
};

export class TokenPostgresEngine implements TokenEngine {
  readonly onSave = new Emitter<unknown>();
  readonly namesWait = true;
  readonly renames: PostgresRenameLimit;
  /** Last uses (token id → ISO time) waiting for the next batch. */
  readonly #lastUses = new Map<string, string>();
  #batch: NodeJS.Timeout | undefined;
  /** Reloads run one after another, so an older row never lands after a newer one. */
  #reloading: Promise<void> = Promise.resolve();
  /**
   * Commits of this replica, by token id. A row read while this replica committed a change
   * to it may be older than that change (read before the commit, landed after): it is
   * dropped, and the commit's own notification reads the row again. Only reads under way
   * need it: emptied whenever no reload is queued.
   */
  readonly #commits = new Map<string, number>();
  #reloadsQueued = 0;

  constructor(private readonly database: PostgresDatabase) {
    this.renames = new PostgresRenameLimit(database);
  }

  /** Every kept token, oldest first; a row that is not a token record is skipped and said. */
  async load(): Promise<TokenRecord[]> {
    const { rows } = await this.database.query<{ record: unknown }>(
      `SELECT record FROM auth_tokens ORDER BY record->>'createdAt', id`,
    );
    return rows.flatMap((row) => checked(row.record));
  }

  async commit(write: TokenWrite): Promise<boolean> {
    try {
      const committed = await this.database.transaction(async (client) => {
        let changed = true;
        if (write.kind === 'insert') {
          await client.query('INSERT INTO auth_tokens (id, sha256, record) VALUES ($1, $2, $3)', [
            write.record.id,
            write.record.sha256,
            write.record,
          ]);
        } else if (write.kind === 'patch') {
          const result = await client.query(
            `UPDATE auth_tokens SET record = record || $2::jsonb, updated_at = now()
             WHERE id = $1${write.unlessRevoked === true ? " AND NOT record ? 'revokedAt'" : ''}`,
            [write.id, JSON.stringify(write.fields)],
          );
          changed = result.rowCount === 1;
        } else {
          await client.query('DELETE FROM auth_tokens WHERE id = ANY($1)', [write.ids]);
          await client.query('DELETE FROM rename_allowances WHERE token_id = ANY($1)', [write.ids]);
        }
        // Delivered at COMMIT, and only if it commits.
        for (const id of idsOf(write)) {
          await client.query('SELECT pg_notify($1, $2)', [TOKENS_CHANNEL, id]);
        }
        return changed;
      });
      for (const id of idsOf(write)) this.#commits.set(id, (this.#commits.get(id) ?? 0) + 1);
      return committed;
    } catch (error) {
      throw refusedForDatabase(error, WHAT[write.kind]);
    }
  }

  /**
   * Adds the records the database does not have (by id or hash) and tells every replica; a
   * row it has is never touched: the database wins (a token revoked there stays revoked).
   * One transaction, so replicas importing the same records at once add each once. The ids
   * added.
   */
  async importRecords(records: readonly TokenRecord[]): Promise<string[]> {
    return await this.database.transaction(async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO auth_tokens (id, sha256, record)
         SELECT r->>'id', r->>'sha256', r FROM jsonb_array_elements($1::jsonb) AS r
         ON CONFLICT DO NOTHING
         RETURNING id`,
        [JSON.stringify(records)],
      );
      const ids = rows.map((row) => row.id);
      // Delivered at COMMIT, and only if it commits.
      await client.query('SELECT pg_notify($1, id) FROM unnest($2::text[]) AS id', [
        TOKENS_CHANNEL,
        ids,
      ]);
      return ids;
    });
  }

  /** Only last uses wait here (names are committed at once: every replica shows them). */
  commitSoon(write: TokenWrite): void {
    if (write.kind !== 'patch' || write.fields.lastUsedAt === undefined) return;
    this.#lastUses.delete(write.id);
    if (this.#lastUses.size >= MAX_WAITING_LAST_USES) {
      const oldest = this.#lastUses.keys().next().value;
      if (oldest !== undefined) this.#lastUses.delete(oldest);
    }
    this.#lastUses.set(write.id, write.fields.lastUsedAt);
    if (this.#batch !== undefined) return;
    this.#batch = setTimeout(() => {
      this.#batch = undefined;
      this.flush().catch(() => undefined);
    }, LAST_USE_BATCH_MS);
    this.#batch.unref();
  }

  async flush(): Promise<void> {
    clearTimeout(this.#batch);
    this.#batch = undefined;
    if (this.#lastUses.size === 0) return;
    const batch = [...this.#lastUses];
    this.#lastUses.clear();
    try {
      // A later time never goes back to an earlier one written by another replica.
      await this.database.query(
        `UPDATE auth_tokens AS t SET record = t.record || jsonb_build_object('lastUsedAt', u.at)
         FROM unnest($1::text[], $2::text[]) AS u(id, at)
         WHERE t.id = u.id AND coalesce(t.record->>'lastUsedAt', '') < u.at`,
        [batch.map(([id]) => id), batch.map(([, at]) => at)],
      );
    } catch (error) {
      if (unavailableReason(error) === undefined) throw error;
      // Kept for the next batch, unless a newer use came meanwhile.
      for (const [id, at] of batch) if (!this.#lastUses.has(id)) this.#lastUses.set(id, at);
    }
  }

  async lookup(by: { sha256: string } | { id: string }): Promise<TokenRecord | undefined> {
    // Known to be away: no wait for a connection that cannot come (any unknown token asks).
    if (!this.database.state.available) return undefined;
    const [column, value] = 'sha256' in by ? ['sha256', by.sha256] : ['id', by.id];
    try {
      const { rows } = await this.database.query<{ record: unknown }>(
        `SELECT record FROM auth_tokens WHERE ${column} = $1`,
        [value],
      );
      return rows.flatMap((row) => checked(row.record))[0];
    } catch (error) {
      if (unavailableReason(error) === undefined) throw error;
      return undefined;
    }
  }

  async watch(
    changed: (change: RemoteChange) => void,
    reload: (records: readonly TokenRecord[]) => void,
  ): Promise<Disposable> {
    const store = new DisposableStore();
    const queue = (work: () => Promise<void>) => {
      this.#reloadsQueued += 1;
      this.#reloading = this.#reloading
        .then(work)
        .catch((error: unknown) => {
          // The row is reloaded on the next notification or reconnection.
          if (unavailableReason(error) === undefined) {
            process.emitWarning(`reloading tokens failed: ${String(error)}`);
          }
        })
        .finally(() => {
          this.#reloadsQueued -= 1;
          if (this.#reloadsQueued === 0) this.#commits.clear();
        });
    };
    store.add(
      await this.database.listen(TOKENS_CHANNEL, (id) =>
        queue(async () => {
          const commitsBefore = this.#commits.get(id);
          const { rows } = await this.database.query<{ record: unknown }>(
            'SELECT record FROM auth_tokens WHERE id = $1',
            [id],
          );
          if (this.#commits.get(id) !== commitsBefore) return;
          changed({ id, record: rows.flatMap((row) => checked(row.record))[0] });
        }),
      ),
    );
    store.add(
      this.database.onListenReconnect(() =>
        queue(async () => {
          reload(await this.load());
        }),
      ),
    );
    return store;
  }
}

function idsOf(write: TokenWrite): readonly string[] {
  if (write.kind === 'insert') return [write.record.id];
  if (write.kind === 'patch') return [write.id];
  return write.ids;
}

function checked(record: unknown): TokenRecord[] {
  if (Value.Check(TokenRecord, record)) return [record];
  process.emitWarning('auth_tokens holds a row that is not a token record; it is ignored');
  return [];
}
