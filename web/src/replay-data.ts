/**
 * What the replay page reads: the shell (live, or past from history), its calls, its control
 * events and its recording. Reads fail as the other pages' do, with an `AccessProblem`.
 */
import type { CallInfo, ControlEvent, SessionInfo } from '../../shared/src/api.ts';
import { type AccessProblem, type Fetched, fetchCalls, fetchSession } from './api-client.ts';

export interface ReplayData {
  readonly session: SessionInfo | null;
  readonly calls: readonly CallInfo[];
  readonly events: readonly ControlEvent[];
  /** The asciicast text; null when the shell has none (it printed nothing, or retention). */
  readonly recording: string | null;
}

const HTTP_UNAUTHORIZED = 401;
const HTTP_FORBIDDEN = 403;
const HTTP_NOT_FOUND = 404;

export async function fetchReplayData(sessionId: string): Promise<Fetched<ReplayData>> {
  const path = `/api/sessions/${encodeURIComponent(sessionId)}`;
  const [calls, events, recording, session] = await Promise.all([
    fetchCalls(sessionId),
    get(`${path}/events`, 'application/json'),
    get(`${path}/recording`, 'application/x-asciicast'),
    sessionInfo(sessionId),
  ]);
  if (!calls.ok) return calls;
  if (!events.ok) return events;
  if (!recording.ok && recording.problem.kind !== 'not_found') return recording;
  return {
    ok: true,
    value: {
      session,
      calls: calls.value,
      events: (await events.value.json()) as ControlEvent[],
      recording: recording.ok ? await recording.value.text() : null,
    },
  };
}

/** This run's shell from its own route; a past one from the list of every shell on record. */
async function sessionInfo(sessionId: string): Promise<SessionInfo | null> {
  const live = await fetchSession(sessionId);
  if (live.ok) return live.value;
  const all = await get('/api/sessions?state=ended', 'application/json');
  if (!all.ok) return null;
  const sessions = (await all.value.json()) as SessionInfo[];
  return sessions.find((session) => session.id === sessionId) ?? null;
}

async function get(path: string, accept: string): Promise<Fetched<Response>> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', headers: { accept } });
  } catch (error) {
    return { ok: false, problem: { kind: 'failed', message: `cannot reach jumpseat: ${error}` } };
  }
  if (response.ok) return { ok: true, value: response };
  return { ok: false, problem: await problemOf(response) };
}

async function problemOf(response: Response): Promise<AccessProblem> {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') message = body.error.message;
  } catch {
    // Not our error shape: the status line will do.
  }
  if (response.status === HTTP_UNAUTHORIZED) return { kind: 'login' };
  if (response.status === HTTP_FORBIDDEN) return { kind: 'forbidden', message };
  if (response.status === HTTP_NOT_FOUND) return { kind: 'not_found', message };
  return { kind: 'failed', message };
}
