/**
 * Where a new shell goes: a connected host that is not draining, has room, runs the dialect
 * and carries every label the agent's token asks for; the host the agent's last shell was
 * placed on first (it holds the workspace as the agent left it), then one that holds the
 * agent's workspace at all, otherwise the least loaded. With none, the reason a person can
 * act on.
 */
import type { Dialect } from '../../../shared/src/api.ts';
import { type Labels, missingLabels } from '../../../shared/src/labels.ts';
import type { ErrorSpec } from '../errors.ts';

/** No joined host can take a new shell (the message says why). */
export const JUMPSEAT_ERR_NO_HOST: ErrorSpec = { code: 'NO_HOST', status: 503 };

/** What placement needs to know of a host. */
export interface PlacementCandidate {
  readonly name: string;
  readonly connected: boolean;
  readonly draining: boolean;
  readonly labels: Labels;
  readonly dialects: readonly Dialect[];
  /** Live shells, counting those being started on it. */
  readonly shells: number;
  readonly capacity: number;
  /** Holds `<workspace>/<agent>` for the agent being placed. */
  readonly holdsWorkspace: boolean;
  /** The agent's latest shell was placed here (host-placements.ts). */
  readonly placedLast?: boolean;
}

export type PlacementChoice = { host: string } | { refusal: string };

export function chooseHost(
  candidates: readonly PlacementCandidate[],
  dialect: Dialect,
  labels: Labels,
): PlacementChoice {
  let hosts = candidates.filter((host) => host.connected);
  if (hosts.length === 0) return { refusal: 'no host is connected' };
  hosts = hosts.filter((host) => host.dialects.includes(dialect));
  if (hosts.length === 0) return { refusal: `no connected host runs ${dialect}` };
  const wanted = Object.entries(labels);
  if (wanted.length > 0) {
    hosts = hosts.filter((host) => missingLabels(labels, host.labels).length === 0);
    if (hosts.length === 0) {
      const words = wanted.map(([key, value]) => `${key}=${value}`).join(', ');
      // The contract's wording, one label or several (TOOL-CONTRACT.md).
      return { refusal: `no connected host has the labels ${words}` };
    }
  }
  hosts = hosts.filter((host) => !host.draining);
  if (hosts.length === 0) return { refusal: 'every host is draining' };
  hosts = hosts.filter((host) => host.shells < host.capacity);
  if (hosts.length === 0) return { refusal: 'every host is full' };
  const last = hosts.filter((host) => host.placedLast === true);
  const holding = hosts.filter((host) => host.holdsWorkspace);
  const pool = last.length > 0 ? last : holding.length > 0 ? holding : hosts;
  const best = [...pool].sort(
    (a, b) =>
      a.shells / a.capacity - b.shells / b.capacity ||
      a.shells - b.shells ||
      a.name.localeCompare(b.name),
  )[0] as PlacementCandidate;
  return { host: best.name };
}
