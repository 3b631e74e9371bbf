/**
 * What the replay page reads: the shell (live, or past from history), its calls, its control
 * events and its recording. Reads fail as the other pages' do, with an `AccessProblem`.
 */
import type { CallInfo, ControlEvent, SessionInfo } from '../../shared/src/api.ts';
import {
  type Fetched,
  fetchCalls,
  fetchControlEvents,
  fetchRecording,
  fetchSession,
} from './api-client.ts';

export interface ReplayData {
  readonly session: SessionInfo | null;
  readonly calls: readonly CallInfo[];
  readonly events: readonly ControlEvent[];
  /** The asciicast text; null when the shell has none (it printed nothing, or retention). */
  readonly recording: string | null;
}

export async function fetchReplayData(sessionId: string): Promise<Fetched<ReplayData>> {
  const [calls, events, recording, session] = await Promise.all([
    fetchCalls(sessionId),
    fetchControlEvents(sessionId),
    fetchRecording(sessionId),
    // Live or past: the shell's own route answers for both.
    fetchSession(sessionId),
  ]);
  if (!calls.ok) return calls;
  if (!events.ok) return events;
  if (!recording.ok && recording.problem.kind !== 'not_found') return recording;
  return {
    ok: true,
    value: {
      session: session.ok ? session.value : null,
      calls: calls.value,
      events: events.value,
      recording: recording.ok ? recording.value : null,
    },
  };
}
