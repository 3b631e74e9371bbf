/**
 * When a waiting shell calls for a human: only once it has waited longer than the server's
 * `--needs-human-after-ms` (agents often answer their own prompt a moment later), timed on
 * the server's clock. The dashboard and the session page ask the same question here.
 */
import type { SessionInfo, WebSettings } from '../../shared/src/api.ts';
import { fetchSettings } from './api-client.ts';

/** The server's default, used until (or if never) its settings are read. */
const DEFAULT_NEEDS_HUMAN_AFTER_MS = 2000;

export class NeedsHuman {
  constructor(
    private readonly afterMs: number,
    /** Server clock minus this page's clock (ms). */
    private readonly skewMs: number,
  ) {}

  static from(settings: WebSettings | null, receivedAt = Date.now()): NeedsHuman {
    if (settings === null) return new NeedsHuman(DEFAULT_NEEDS_HUMAN_AFTER_MS, 0);
    const serverNow = Date.parse(settings.serverTime);
    const skew = Number.isNaN(serverNow) ? 0 : serverNow - receivedAt;
    return new NeedsHuman(settings.needsHumanAfterMs, skew);
  }

  static async load(): Promise<NeedsHuman> {
    const settings = await fetchSettings();
    return NeedsHuman.from(settings.ok ? settings.value : null);
  }

  /** The shell waits for input, and has for longer than the threshold. */
  test(session: SessionInfo, now = Date.now()): boolean {
    if (session.state !== 'waiting_input') return false;
    const waitedMs = this.waitedMs(session, now);
    return waitedMs === null || waitedMs >= this.afterMs;
  }

  /** Milliseconds until a waiting shell among `sessions` starts to need a human; null: none. */
  nextChangeIn(sessions: Iterable<SessionInfo>, now = Date.now()): number | null {
    let soonest: number | null = null;
    for (const session of sessions) {
      if (session.state !== 'waiting_input') continue;
      const waited = this.waitedMs(session, now);
      if (waited === null || waited >= this.afterMs) continue;
      const left = this.afterMs - waited;
      soonest = soonest === null ? left : Math.min(soonest, left);
    }
    return soonest;
  }

  /** Null when the server did not say when the wait began (it needs a human at once). */
  private waitedMs(session: SessionInfo, now: number): number | null {
    const since = session.stateSince === undefined ? Number.NaN : Date.parse(session.stateSince);
    return Number.isNaN(since) ? null : now + this.skewMs - since;
  }
}
