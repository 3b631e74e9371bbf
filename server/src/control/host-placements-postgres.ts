/**
 * Placements with `--database`: rows of `host_placements` shared by every replica. A claim is
 * one statement that writes only if the row is as read (inserted where there was none, or its
 * claim number unchanged), so of two replicas placing the same new shell at once exactly one
 * writes; the other reads the winner's host (host-placements.ts). While the database is away
 * these throw, and placement goes on without them (shell-placer.ts).
 */
import type { Dialect } from '../../../shared/src/api.ts';
import { refusedForDatabase } from '../database/database-refusal.ts';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import { CLAIM_ATTEMPTS, type HostPlacements, type PlacementRecord } from './host-placements.ts';

export class PostgresPlacements implements HostPlacements {
  constructor(private readonly database: PostgresDatabase) {}

  async of(agent: string): Promise<PlacementRecord[]> {
    const { rows } = await this.database.query<{ dialect: Dialect; host: string; claim: string }>(
      `SELECT dialect, host, claim FROM host_placements WHERE agent = $1
       ORDER BY placed_at DESC, claim DESC`,
      [agent],
    );
    return rows.map((row) => ({ dialect: row.dialect, host: row.host, claim: Number(row.claim) }));
  }

  async claim(agent: string, dialect: Dialect, host: string, seen: number | null): Promise<string> {
    let expected = seen;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      // Under READ COMMITTED a rival's claim in flight makes this one wait for its commit and
      // then see the row as it left it: the claim number moved, so nothing is written.
      const { rowCount } =
        expected === null
          ? await this.database.query(
              `INSERT INTO host_placements (agent, dialect, host, claim) VALUES ($1, $2, $3, 1)
               ON CONFLICT (agent, dialect) DO NOTHING`,
              [agent, dialect, host],
            )
          : await this.database.query(
              `UPDATE host_placements SET host = $3, claim = claim + 1, placed_at = now()
               WHERE agent = $1 AND dialect = $2 AND claim = $4`,
              [agent, dialect, host, expected],
            );
      if ((rowCount ?? 0) > 0) return host;
      const { rows } = await this.database.query<{ host: string }>(
        'SELECT host FROM host_placements WHERE agent = $1 AND dialect = $2',
        [agent, dialect],
      );
      if (rows[0] !== undefined) return rows[0].host;
      expected = null;
    }
    return host;
  }

  async forgetHost(host: string): Promise<void> {
    try {
      await this.database.query('DELETE FROM host_placements WHERE host = $1', [host]);
    } catch (error) {
      throw refusedForDatabase(error, `forgetting host ${host}`);
    }
  }

  close(): void {}
}
