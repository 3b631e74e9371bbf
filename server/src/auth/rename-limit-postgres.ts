/**
 * Rename allowances shared by every replica (`--database`): a row of `rename_allowances` per
 * token that renamed, taken under a row lock and counted on the database's clock, so that two
 * replicas renaming the same token at once take two renames from one allowance, and a replica
 * whose clock runs ahead earns nothing early.
 */
import { refusedForDatabase } from '../database/database-refusal.ts';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import { RENAME_BURST, type RenameAllowances, renameRefused, takeRename } from './rename-limit.ts';

/** Tokens whose last refusal is remembered here before the oldest is forgotten. */
const MAX_REMEMBERED_REFUSALS = 10_000;

export class PostgresRenameLimit implements RenameAllowances {
  /**
   * When each token refused here may rename again at the earliest (this replica's clock): a
   * rename refused for W ms cannot pass anywhere before W ms have gone (the other replicas can
   * only spend the allowance), so a link holder renaming in a loop is refused without asking
   * the database each time.
   */
  readonly #refusedUntil = new Map<string, number>();

  constructor(private readonly database: PostgresDatabase) {}

  async take(tokenId: string): Promise<void> {
    const until = this.#refusedUntil.get(tokenId);
    if (until !== undefined) {
      if (until > Date.now()) throw renameRefused(until - Date.now());
      this.#refusedUntil.delete(tokenId);
    }
    let waitMs: number | undefined;
    try {
      await this.database.transaction(async (client) => {
        // A first rename's row starts full; ON CONFLICT: another replica made it meanwhile.
        await client.query(
          `INSERT INTO rename_allowances (token_id, tokens, at_ms) VALUES ($1, $2, 0)
           ON CONFLICT (token_id) DO NOTHING`,
          [tokenId, RENAME_BURST],
        );
        const { rows } = await client.query<{ tokens: number; at_ms: string; now_ms: string }>(
          `SELECT tokens, at_ms, (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms
           FROM rename_allowances WHERE token_id = $1 FOR UPDATE`,
          [tokenId],
        );
        const [row] = rows;
        if (row === undefined) throw new Error(`rename_allowances lost the row of ${tokenId}`);
        const taken = takeRename({ tokens: row.tokens, at: Number(row.at_ms) }, Number(row.now_ms));
        if ('waitMs' in taken) {
          waitMs = taken.waitMs;
          return;
        }
        await client.query(
          'UPDATE rename_allowances SET tokens = $2, at_ms = $3 WHERE token_id = $1',
          [tokenId, taken.left.tokens, taken.left.at],
        );
      });
    } catch (error) {
      throw refusedForDatabase(error, 'the new name');
    }
    if (waitMs !== undefined) {
      if (this.#refusedUntil.size >= MAX_REMEMBERED_REFUSALS) {
        const oldest = this.#refusedUntil.keys().next().value;
        if (oldest !== undefined) this.#refusedUntil.delete(oldest);
      }
      this.#refusedUntil.set(tokenId, Date.now() + waitMs);
      throw renameRefused(waitMs);
    }
  }
}
