/**
 * The call rate of many agents through the replicas (issue 24: "two replicas on one PostgreSQL
 * sustain the single-replica call rate within 20 %"): each agent calls `bash("true")` a fixed
 * number of times in a loop of its own, through the replica a load balancer would have given
 * it; the agents run together and the rate is all calls over the time they took.
 */
import { call, firstCall, type Server } from './bench-server.ts';

/** Each agent's calls in one measurement (a bounded loop, not a duration). */
const CALLS_PER_AGENT = 30;
/** First calls (new shells) started at once: a busy machine misses start deadlines past it. */
const START_CONCURRENCY = 4;

/** An agent and the replica its calls go to. */
export interface RoutedAgent {
  readonly agent: string;
  readonly server: Server;
}

/** Starts every agent's shell (through its replica), a few at a time, in the agents' order. */
export async function startShells(agents: readonly RoutedAgent[]): Promise<void> {
  for (let i = 0; i < agents.length; i += START_CONCURRENCY) {
    await Promise.all(
      agents.slice(i, i + START_CONCURRENCY).map(({ agent, server }) => firstCall(server, agent)),
    );
  }
}

/** Calls per second, every agent calling `true` CALLS_PER_AGENT times at once. */
export async function callRate(agents: readonly RoutedAgent[]): Promise<number> {
  const start = performance.now();
  await Promise.all(
    agents.map(async ({ agent, server }) => {
      for (let i = 0; i < CALLS_PER_AGENT; i++) {
        const output = await call(server, agent, 'true');
        if (output !== '') throw new Error(`${agent}: true answered ${JSON.stringify(output)}`);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return (agents.length * CALLS_PER_AGENT) / seconds;
}

/** How many agents' calls are relayed: their shell's host is linked to another replica. */
export async function relayedAgents(
  agents: readonly RoutedAgent[],
  linkedTo: ReadonlyMap<string, Server>,
): Promise<number> {
  const [first] = agents;
  if (first === undefined) return 0;
  const response = await fetch(`${first.server.url}/api/sessions`, {
    headers: { authorization: `Bearer ${first.server.token}` },
  });
  const sessions = (await response.json()) as { agent: string | null; host?: string }[];
  let relayed = 0;
  for (const { agent, server } of agents) {
    const host = sessions.find((session) => session.agent === agent)?.host;
    if (host === undefined) throw new Error(`${agent} has no shell on a host`);
    if (linkedTo.get(host) !== server) relayed++;
  }
  return relayed;
}
