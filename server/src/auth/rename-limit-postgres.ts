/**
 * Rename allowances shared by every replica (`--database`): a row of `rename_allowances` per
 * token that renamed, taken under a row lock and counted on the database's clock, so that two
 * replicas renaming the same token at once take two renames from one allowance, and a replica
 * whose clock runs ahead earns nothing early.
 */
import { refusedForDatabase } from '../database/database-refusal.ts';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import { RENAME_BURST, type RenameAllowances, renameRefused, takeRename } from './rename-limit.ts';

export class PostgresRenameLimit implements RenameAllowances {
  constructor(private readonly database: PostgresDatabase) {}

  async take(tokenId: string): Promise<void> {
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
    if (waitMs !== undefined) throw renameRefused(waitMs);
  }
}
