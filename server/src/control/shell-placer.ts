/**
 * Picks the host of an agent's new shell and records it: the candidates as this replica sees
 * its directory, the host the agent's latest shell was placed on (host-placements.ts) first,
 * and a claim so that replicas placing the same shell at once agree. The loser of a claim
 * follows the winner's host when that host can take the shell here too; otherwise it keeps its
 * own choice (the winner's host is gone or full as this replica sees it). With the placements'
 * store unavailable, placement goes on from the directory alone.
 */
import type { Dialect } from '../../../shared/src/api.ts';
import type { Labels } from '../../../shared/src/labels.ts';
import { unavailableReason } from '../database/postgres-database.ts';
import { JumpseatError } from '../errors.ts';
import type { HostPlacements, PlacementRecord } from './host-placements.ts';
import type { HostDirectory, JoinedHost } from './joined-hosts.ts';
import { chooseHost, JUMPSEAT_ERR_NO_HOST, type PlacementCandidate } from './placement.ts';

export class ShellPlacer {
  constructor(
    private readonly directory: HostDirectory,
    private readonly placements: HostPlacements | null,
  ) {}

  /** `starting(host)`: shells being started there that the host has not reported yet. */
  async place(
    agent: string,
    dialect: Dialect,
    labels: Labels,
    starting: (host: JoinedHost) => number,
  ): Promise<JoinedHost> {
    const records = await this.recorded(agent);
    const latest = records?.[0]?.host;
    const candidates = [...this.directory.hosts.values()].map(
      (host): PlacementCandidate => ({
        name: host.name,
        connected: host.connected,
        draining: host.draining,
        labels: host.labels,
        dialects: host.dialects,
        shells: host.liveShells() + starting(host),
        capacity: host.capacity,
        holdsWorkspace: host.workspaces.has(agent),
        placedLast: host.name === latest,
      }),
    );
    const choice = chooseHost(candidates, dialect, labels);
    if ('refusal' in choice) throw new JumpseatError(JUMPSEAT_ERR_NO_HOST, choice.refusal);
    const chosen = this.directory.hosts.get(choice.host) as JoinedHost;
    if (records === undefined || this.placements === null) return chosen;
    const seen = records.find((record) => record.dialect === dialect)?.claim ?? null;
    const winner = await this.placements
      .claim(agent, dialect, chosen.name, seen)
      .catch((error: unknown) => {
        warnUnlessAway(error);
        return chosen.name;
      });
    if (winner === chosen.name) return chosen;
    // Another replica placed this shell first: go where it went, if that host can take it here.
    const followed = chooseHost(
      candidates.filter((candidate) => candidate.name === winner),
      dialect,
      labels,
    );
    return 'host' in followed ? (this.directory.hosts.get(followed.host) as JoinedHost) : chosen;
  }

  /** The agent's placements, or undefined when there is no store or it cannot answer now. */
  private async recorded(agent: string): Promise<PlacementRecord[] | undefined> {
    if (this.placements === null) return undefined;
    return this.placements.of(agent).catch((error: unknown) => {
      warnUnlessAway(error);
      return undefined;
    });
  }
}

/** The database away is known and shown (`/healthz`); anything else is said. */
function warnUnlessAway(error: unknown): void {
  if (unavailableReason(error) !== undefined) return;
  process.emitWarning(`host placements: ${error instanceof Error ? error.message : String(error)}`);
}
