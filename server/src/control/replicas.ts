/**
 * This control plane as one replica of several on one PostgreSQL (`--database` with
 * `--local-shells off`): it registers (replica-registry.ts), beats, and keeps a link to every
 * other live replica (replica-links.ts), so that hosts linked to any replica are reached from
 * all of them. docs/high-availability.md says why replicas relay rather than hosts linking to
 * every replica.
 */
import { randomUUID } from 'node:crypto';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import type { HostDirectory } from './joined-hosts.ts';
import { ReplicaLinks } from './replica-links.ts';
import { REPLICA_HEARTBEAT_MS, ReplicaRegistry } from './replica-registry.ts';

export class Replicas {
  readonly id = randomUUID();
  readonly links: ReplicaLinks;
  private timer: NodeJS.Timeout | undefined;
  private url = '';
  private stopped = false;
  private failing = false;

  private constructor(
    private readonly registry: ReplicaRegistry,
    readonly secret: string,
    directory: HostDirectory,
    private readonly log: (line: string) => void,
  ) {
    directory.replicaId = this.id;
    this.links = new ReplicaLinks(this.id, secret, directory, log);
  }

  /** Reads (or makes) the cluster's secret; the replica starts beating with `start`. */
  static async open(
    database: PostgresDatabase,
    directory: HostDirectory,
    log: (line: string) => void,
  ): Promise<Replicas> {
    const registry = new ReplicaRegistry(database);
    return new Replicas(registry, await registry.secret(), directory, log);
  }

  /** Registers at `url` (where the other replicas reach this one) and beats from now on. */
  async start(url: string): Promise<void> {
    this.url = url;
    await this.beat();
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.links.close();
    await this.registry.leave(this.id).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    try {
      await this.registry.beat({ id: this.id, url: this.url });
      const peers = await this.registry.peers(this.id);
      if (!this.stopped) this.links.reconcile(peers);
      if (this.failing) this.log('replica heartbeat: written again');
      this.failing = false;
    } catch (error) {
      // The database away: the links there are stay as they are until it is back. Said once.
      if (!this.failing) {
        this.log(`replica heartbeat failed: ${error instanceof Error ? error.message : error}`);
      }
      this.failing = true;
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.beat(), REPLICA_HEARTBEAT_MS);
  }
}
