/**
 * The bytes the saved outputs take, per agent and in all, kept as they are written: a write
 * that would pass a cap first deletes the oldest files that are not being written (the
 * agent's own for its cap, anyone's for the total), and gets only the room left after that.
 */
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

export interface SpillCaps {
  readonly maxAgentBytes: number;
  readonly maxTotalBytes: number;
}

/** Which cap limited a write. */
export type SpillCap = 'agent' | 'total';

interface SavedFile {
  readonly agent: string;
  readonly name: string;
  bytes: number;
}

export class SpillBudget {
  /** Every saved file, oldest first (names sort by creation time). */
  private files: SavedFile[] | null = null;
  private readonly byKey = new Map<string, SavedFile>();
  private readonly open = new Set<string>();
  private total = 0;
  private readonly perAgent = new Map<string, number>();

  constructor(
    private readonly dir: string,
    private readonly caps: SpillCaps,
    private readonly fileName: RegExp,
  ) {}

  /** A new (empty) file is being written: it is never deleted to make room. */
  opened(agent: string, name: string): void {
    const files = this.known();
    if (!this.byKey.has(key(agent, name))) {
      const file = { agent, name, bytes: 0 };
      files.push(file);
      this.byKey.set(key(agent, name), file);
    }
    this.open.add(key(agent, name));
  }

  closed(agent: string, name: string): void {
    this.open.delete(key(agent, name));
  }

  /**
   * Room for up to `bytes` more in `agent`'s file `name`: all of them, or fewer (with the cap
   * that limited them) once older files are deleted and it is still too much.
   */
  take(agent: string, name: string, bytes: number): { granted: number; cap: SpillCap | null } {
    const agentRoom = (): number => this.caps.maxAgentBytes - (this.perAgent.get(agent) ?? 0);
    const totalRoom = (): number => this.caps.maxTotalBytes - this.total;
    if (agentRoom() < bytes) this.evict(bytes - agentRoom(), (file) => file.agent === agent);
    if (totalRoom() < bytes) this.evict(bytes - totalRoom(), () => true);
    const granted = Math.max(0, Math.min(bytes, agentRoom(), totalRoom()));
    const cap = granted === bytes ? null : agentRoom() <= totalRoom() ? 'agent' : 'total';
    const file = this.byKey.get(key(agent, name));
    if (file !== undefined) file.bytes += granted;
    this.add(agent, granted);
    return { granted, cap };
  }

  /** Bytes `take` granted to the file that it did not write after all. */
  giveBack(agent: string, name: string, bytes: number): void {
    const file = this.byKey.get(key(agent, name));
    const back = Math.min(bytes, file?.bytes ?? 0);
    if (file === undefined || back <= 0) return;
    file.bytes -= back;
    this.add(agent, -back);
  }

  /** A file was deleted (pruned or discarded). */
  removed(agent: string, name: string): void {
    const file = this.byKey.get(key(agent, name));
    if (file === undefined) return;
    const files = this.known();
    files.splice(files.indexOf(file), 1);
    this.byKey.delete(key(agent, name));
    this.add(agent, -file.bytes);
    this.open.delete(key(agent, name));
  }

  /** Reads what is on disk, if not done yet (before a file of ours is created). */
  load(): void {
    this.known();
  }

  get totalBytes(): number {
    this.known();
    return this.total;
  }

  private evict(needed: number, eligible: (file: SavedFile) => boolean): void {
    let freed = 0;
    for (const file of [...this.known()]) {
      if (freed >= needed) return;
      if (!eligible(file) || this.open.has(key(file.agent, file.name))) continue;
      try {
        unlinkSync(join(this.dir, file.agent, file.name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') continue;
      }
      freed += file.bytes;
      this.removed(file.agent, file.name);
    }
  }

  private add(agent: string, bytes: number): void {
    this.total += bytes;
    this.perAgent.set(agent, (this.perAgent.get(agent) ?? 0) + bytes);
  }

  /** The files on disk, read once (a server restart finds the last run's outputs). */
  private known(): SavedFile[] {
    if (this.files !== null) return this.files;
    this.files = [];
    let agents: string[] = [];
    try {
      agents = readdirSync(this.dir);
    } catch {
      // No outputs yet.
    }
    for (const agent of agents) {
      let names: string[] = [];
      try {
        names = readdirSync(join(this.dir, agent)).filter((n) => this.fileName.test(n));
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        try {
          const { size } = statSync(join(this.dir, agent, name));
          const file = { agent, name, bytes: size };
          this.files.push(file);
          this.byKey.set(key(agent, name), file);
          this.add(agent, size);
        } catch {
          // Deleted meanwhile.
        }
      }
    }
    this.files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return this.files;
  }
}

function key(agent: string, name: string): string {
  return `${agent}/${name}`;
}
