/**
 * Answers a host linked here gave for calls no one here waited for. When a host's link moves
 * from replica B to this one while B lives, the host delivers the answers it kept as soon as it
 * is welcomed here, before B learns where the link went; B then offers its calls in flight
 * here again (remote-calls.ts), and those already answered are answered from here instead of
 * being run again or lost. Bounded: the oldest go first.
 */
import type { HostMessage } from '../../../shared/src/link.ts';

/** Answers kept at most across hosts (a host keeps an hour of its own; this is a hand-over). */
const MAX_UNCLAIMED_ANSWERS = 1000;

export type CallAnswer = Extract<HostMessage, { type: 'call_result' | 'call_error' }>;

export class UnclaimedAnswers {
  /** By call id, oldest first (a Map keeps insertion order). */
  private readonly answers = new Map<string, { host: string; answer: CallAnswer }>();

  keep(host: string, answer: CallAnswer): void {
    this.answers.delete(answer.callId);
    this.answers.set(answer.callId, { host, answer });
    if (this.answers.size > MAX_UNCLAIMED_ANSWERS) {
      const oldest = this.answers.keys().next().value;
      if (oldest !== undefined) this.answers.delete(oldest);
    }
  }

  /** The answer `host` gave for `callId`, handed over once. */
  take(host: string, callId: string): CallAnswer | undefined {
    const kept = this.answers.get(callId);
    if (kept === undefined || kept.host !== host) return undefined;
    this.answers.delete(callId);
    return kept.answer;
  }

  /** A host gone for good here: its answers go. */
  forget(host: string): void {
    for (const [id, kept] of this.answers) if (kept.host === host) this.answers.delete(id);
  }
}
