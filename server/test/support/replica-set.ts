/**
 * Replicas on one PostgreSQL, as the replica suites set them up (issue 24): control planes
 * (each a HostCluster, with the hosts it starts) sharing a database of the test file's own and
 * one admin token; the helpers a suite adds (a TCP forwarder, a database cut) are closed with
 * them, after them, and the database is dropped last.
 */
import { randomBytes } from 'node:crypto';
import { HostCluster } from './host-cluster.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './test-database.ts';

/** Whether the suites have a PostgreSQL to run against (postgres-check.ts says why not). */
export const HAS_TEST_DATABASE = TEST_DATABASE_URL !== '';

/** What every replica of a set starts with (a type, not an interface: it is an env). */
export type ReplicaEnv = {
  readonly JUMPSEAT_TOKEN: string;
  readonly JUMPSEAT_DATABASE_URL: string;
};

interface Closable {
  close(): Promise<void>;
}

export class ReplicaSet {
  readonly replicas: readonly HostCluster[];
  private readonly helpers: Closable[] = [];
  private database: TestDatabase | undefined;

  constructor(count: number) {
    this.replicas = Array.from({ length: count }, () => new HostCluster());
  }

  /** The n-th replica (from 0): one that exists, or a programming error in the suite. */
  at(index: number): HostCluster {
    const replica = this.replicas[index];
    if (replica === undefined) throw new Error(`a set of ${this.replicas.length} has no #${index}`);
    return replica;
  }

  /** Makes the database; the env its replicas share: a fresh admin token and its URL. */
  async open(): Promise<{ readonly database: TestDatabase; readonly env: ReplicaEnv }> {
    const database = await createTestDatabase();
    this.database = database;
    const env = {
      JUMPSEAT_TOKEN: randomBytes(24).toString('base64url'),
      JUMPSEAT_DATABASE_URL: database.url,
    };
    return { database, env };
  }

  /** `helper`, closed with the set once its replicas are. */
  keep<T extends Closable>(helper: T): T {
    this.helpers.push(helper);
    return helper;
  }

  /** Waits until every replica given (all by default) lists each host as connected. */
  async hostsConnected(
    hosts: readonly string[],
    on: readonly HostCluster[] = this.replicas,
    withinMs = 30_000,
  ): Promise<void> {
    for (const cluster of on) {
      for (const host of hosts) {
        await cluster.waitFor(
          async () => (await cluster.hostState(host)) === 'connected',
          `${host} on ${cluster.origin}`,
          withinMs,
          () => this.replicas.map((replica) => replica.controlPlane?.stderr() ?? '').join(' '),
        );
      }
    }
  }

  /** Stops the replicas and their hosts, then the helpers, then drops the database. */
  async close(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.close()));
    for (const helper of this.helpers) await helper.close();
    await this.database?.drop();
  }
}
