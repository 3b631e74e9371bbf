/**
 * An agent's shell that ended (reset after a timeout, `exit`, a cancelled call) is followed
 * by a new one on the agent's next call. A page watching the ended shell looks for it, so a
 * supervisor can follow the agent instead of staring at a dead terminal.
 */
import type { SessionInfo } from '../../shared/src/api.ts';
import { fetchSessions } from './api-client.ts';

/** How often the server's shells are listed while waiting for the successor. */
const LOOK_EVERY_MS = 2000;

/** The agent's live shell of the same dialect that is not `ended`, if there is one now. */
export function successorOf(
  ended: SessionInfo,
  sessions: readonly SessionInfo[],
): SessionInfo | undefined {
  return sessions
    .filter(
      (s) =>
        s.id !== ended.id &&
        s.agent === ended.agent &&
        s.dialect === ended.dialect &&
        s.state !== 'exited' &&
        s.state !== 'ended' &&
        s.startedAt >= ended.startedAt,
    )
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
}

/** Looks until the successor appears (then calls `found` once); the result stops looking. */
export function watchForSuccessor(
  ended: SessionInfo,
  found: (next: SessionInfo) => void,
): () => void {
  let stopped = false;
  const look = async (): Promise<void> => {
    const sessions = await fetchSessions();
    if (stopped || !sessions.ok) return;
    const next = successorOf(ended, sessions.value);
    if (!next) return;
    stop();
    found(next);
  };
  const timer = setInterval(() => void look(), LOOK_EVERY_MS);
  const stop = (): void => {
    stopped = true;
    clearInterval(timer);
  };
  void look();
  return stop;
}
