/**
 * Placements of a control plane without `--database`: rows of `host_placements` in the data
 * dir's `hosts.db` (hosts-sqlite.ts), so that after a restart an agent's new shell goes back
 * to the host that held its workspace. One process places, so a claim never loses here; it
 * is the same claim as PostgreSQL's all the same (host-placements.ts).
 */
import type Database from 'better-sqlite3';
import type { Dialect } from '../../../shared/src/api.ts';
import { CLAIM_ATTEMPTS, type HostPlacements, type PlacementRecord } from './host-placements.ts';

export class SqlitePlacements implements HostPlacements {
  private readonly statements;

  /** `db` is a connection of its own to the hosts' file; it is closed with these placements. */
  constructor(private readonly db: Database.Database) {
    this.statements = {
      of: db.prepare(
        'SELECT dialect, host, claim FROM host_placements WHERE agent = ? ORDER BY placed_at DESC, claim DESC',
      ),
      first: db.prepare(
        `INSERT INTO host_placements (agent, dialect, host, claim, placed_at)
         VALUES (?, ?, ?, 1, ?) ON CONFLICT (agent, dialect) DO NOTHING`,
      ),
      next: db.prepare(
        `UPDATE host_placements SET host = ?, claim = claim + 1, placed_at = ?
         WHERE agent = ? AND dialect = ? AND claim = ?`,
      ),
      current: db.prepare('SELECT host FROM host_placements WHERE agent = ? AND dialect = ?'),
      forget: db.prepare('DELETE FROM host_placements WHERE host = ?'),
    };
  }

  async of(agent: string): Promise<PlacementRecord[]> {
    return this.statements.of.all(agent) as PlacementRecord[];
  }

  async claim(agent: string, dialect: Dialect, host: string, seen: number | null): Promise<string> {
    let expected = seen;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const now = new Date().toISOString();
      const won =
        expected === null
          ? this.statements.first.run(agent, dialect, host, now).changes
          : this.statements.next.run(host, now, agent, dialect, expected).changes;
      if (won > 0) return host;
      const row = this.statements.current.get(agent, dialect) as { host: string } | undefined;
      if (row !== undefined) return row.host;
      expected = null;
    }
    return host;
  }

  async forgetHost(host: string): Promise<void> {
    this.statements.forget.run(host);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
