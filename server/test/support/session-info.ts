/**
 * An agent's live shell as one replica (or control plane) lists it, for the tests that ask
 * which shell an agent has and on which host it runs.
 */
import type { HostCluster } from './host-cluster.ts';

type Listed = Awaited<ReturnType<HostCluster['sessions']>>[number];

/** The agent's shell that has not ended, if `cluster` lists one. */
export async function liveSession(
  cluster: HostCluster,
  agent: string,
): Promise<Listed | undefined> {
  return (await cluster.sessions()).find((s) => s.agent === agent && s.state !== 'exited');
}

/** The host the agent's live shell runs on, as `cluster` lists it. */
export async function hostOf(cluster: HostCluster, agent: string): Promise<string | undefined> {
  return (await liveSession(cluster, agent))?.host;
}

/** The id of the agent's live shell; throws when it has none. */
export async function shellOf(cluster: HostCluster, agent: string): Promise<string> {
  const session = await liveSession(cluster, agent);
  if (session === undefined) throw new Error(`agent ${agent} has no shell`);
  return session.id;
}
