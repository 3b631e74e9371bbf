/**
 * Which hosts are drained (no new shell goes there) and which were forgotten: facts an admin
 * states once for the whole control plane, kept across restarts: without `--database` in the
 * data dir's SQLite file (host-drains-sqlite.ts), with it in PostgreSQL and shared by every
 * replica (host-drains-postgres.ts). The memory-only drains here serve in-process tests.
 */
import { type Disposable, Emitter } from '../pty/disposable.ts';

export interface HostDrains {
  /** Whether `name` is drained now (as this replica last heard). */
  has(name: string): boolean;
  /** Kept (and, with a database, shared) before it resolves; refused while it cannot be. */
  drain(name: string): Promise<void>;
  undrain(name: string): Promise<void>;
  /** The host is gone: its drain goes with it, and every replica forgets it. */
  forget(name: string): Promise<void>;
  /** A host was forgotten (on this replica or another). */
  onForget(listener: (name: string) => void): Disposable;
  close(): void;
}

/** One process's drains, forgotten at its end (a directory built without a store). */
export class MemoryHostDrains implements HostDrains {
  private readonly drained = new Set<string>();
  private readonly forgotten = new Emitter<string>();

  has(name: string): boolean {
    return this.drained.has(name);
  }

  async drain(name: string): Promise<void> {
    this.drained.add(name);
  }

  async undrain(name: string): Promise<void> {
    this.drained.delete(name);
  }

  async forget(name: string): Promise<void> {
    this.drained.delete(name);
    this.forgotten.fire(name);
  }

  onForget(listener: (name: string) => void): Disposable {
    return this.forgotten.on(listener);
  }

  close(): void {
    this.forgotten.clear();
  }
}
