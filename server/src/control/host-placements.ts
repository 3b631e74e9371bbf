/**
 * Where each agent's shells were placed last (one row per agent and dialect), kept so that
 * placement goes back to the host that last held the agent's workspace after a restart or on
 * another replica, and so that two replicas placing the same agent's new shell at once agree.
 * A placement is a claim on the row as read: it wins only if no one placed that shell since
 * (the row's claim number is still the one read); the loser learns the winner's host and
 * follows it (shell-placer.ts). Without `--database` the rows are in the data dir's
 * `hosts.db` (host-placements-sqlite.ts), with it in PostgreSQL (host-placements-postgres.ts).
 */
import type { Dialect } from '../../../shared/src/api.ts';

export interface PlacementRecord {
  readonly dialect: Dialect;
  readonly host: string;
  /** Grows at each placement of this agent's shell of this dialect. */
  readonly claim: number;
}

export interface HostPlacements {
  /** The agent's placements, the latest first. */
  of(agent: string): Promise<PlacementRecord[]>;
  /**
   * Records `host` for the agent's new shell of `dialect` if its claim is still `seen` (null:
   * there was no row), and answers the host the shell is placed on now: `host` when this claim
   * won, the winner's when another was first.
   */
  claim(agent: string, dialect: Dialect, host: string, seen: number | null): Promise<string>;
  /** A host forgotten by an admin: placement no longer leads there. */
  forgetHost(host: string): Promise<void>;
  close(): void;
}

/** Claims tried when the row changes under them in ways other than a rival's placement
 *  (deleted by a forget between the read and the claim). */
export const CLAIM_ATTEMPTS = 3;
