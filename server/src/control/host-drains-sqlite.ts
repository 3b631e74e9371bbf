/**
 * Host drains of a control plane without `--database`: rows of `host_drains` in its own
 * SQLite file (hosts-sqlite.ts), so a drain outlives a restart as it does with PostgreSQL.
 * There is no other replica to tell: a forget is heard here only.
 */
import type Database from 'better-sqlite3';
import { type Disposable, Emitter } from '../pty/disposable.ts';
import type { HostDrains } from './host-drains.ts';

export class SqliteHostDrains implements HostDrains {
  private readonly drained: Set<string>;
  private readonly forgotten = new Emitter<string>();
  private readonly statements;

  /** `db` is the hosts' file; it is closed with these drains. */
  constructor(private readonly db: Database.Database) {
    this.statements = {
      drain: db.prepare(
        'INSERT INTO host_drains (name, drained_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
      ),
      undrain: db.prepare('DELETE FROM host_drains WHERE name = ?'),
    };
    const rows = db.prepare('SELECT name FROM host_drains').all() as { name: string }[];
    this.drained = new Set(rows.map((row) => row.name));
  }

  has(name: string): boolean {
    return this.drained.has(name);
  }

  async drain(name: string): Promise<void> {
    this.statements.drain.run(name, new Date().toISOString());
    this.drained.add(name);
  }

  async undrain(name: string): Promise<void> {
    this.statements.undrain.run(name);
    this.drained.delete(name);
  }

  async forget(name: string): Promise<void> {
    await this.undrain(name);
    this.forgotten.fire(name);
  }

  onForget(listener: (name: string) => void): Disposable {
    return this.forgotten.on(listener);
  }

  close(): void {
    this.forgotten.clear();
    if (this.db.open) this.db.close();
  }
}
