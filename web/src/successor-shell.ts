/**
 * An agent's shell that ended (reset after a timeout, `exit`, a cancelled call) is followed
 * by a new one on the agent's next call. A page watching the ended shell looks for it, so a
 * supervisor can follow the agent instead of staring at a dead terminal.
 */
import type { SessionInfo } from '../../shared/src/api.ts';
import { parseDashboardMessage } from '../../shared/src/live.ts';
import { ticketedSocketUrl } from './api-client.ts';
import { ReconnectingSocket } from './reconnecting-socket.ts';
import { isOver } from './session-labels.ts';

/** The agent's live shell of the same dialect that is not `ended`, if there is one now. */
export function successorOf(
  ended: SessionInfo,
  sessions: readonly SessionInfo[],
): SessionInfo | undefined {
  return sessions
    .filter(
      (s) =>
        s.id !== ended.id &&
        ended.agent !== null &&
        s.agent === ended.agent &&
        s.dialect === ended.dialect &&
        !isOver(s.state) &&
        s.startedAt >= ended.startedAt,
    )
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
}

/**
 * Watches the dashboard stream (`GET /api/live`: every shell on join, then each one that
 * appears or changes) until the successor shows up, then calls `found` once and closes it.
 * The result stops watching.
 */
export function watchForSuccessor(
  ended: SessionInfo,
  found: (next: SessionInfo) => void,
): () => void {
  const socket = new ReconnectingSocket({
    url: () => ticketedSocketUrl('/api/live'),
    onText(text) {
      const parsed = parseDashboardMessage(text);
      if (!parsed.ok) return;
      const message = parsed.message;
      if (message.type === 'session_removed') return;
      const shells = message.type === 'sessions' ? message.sessions : [message.session];
      const next = successorOf(ended, shells);
      if (next === undefined) return;
      socket.stop();
      found(next);
    },
    onBinary() {},
    onState() {},
  });
  socket.start();
  return () => socket.stop();
}
