/**
 * The Prometheus metrics of one server (`GET /metrics`): calls by dialect and outcome, call
 * durations, shells by state, viewers, bytes streamed to viewers and viewer resyncs. One
 * registry per Metrics object, never prom-client's global one, so several servers in one
 * process (tests) count apart.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Dialect, SessionInfo } from '../../../shared/src/api.ts';
import type { Disposable } from '../pty/disposable.ts';
import type { FinishedCall } from '../tool/tool-service.ts';

/**
 * Seconds. A call takes from a millisecond (`true`) to the 300 s default timeout; the buckets
 * cover that range roughly evenly on a log scale, ending at the default timeout.
 */
const CALL_DURATION_BUCKETS_S = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
];

/** What the metrics read at scrape time: every shell the engine knows. */
export interface MetricsSource {
  sessions(): SessionInfo[];
  onCallFinished(listener: (call: FinishedCall) => void): Disposable;
}

export class Metrics {
  readonly registry = new Registry();
  private sessions: () => SessionInfo[] = () => [];
  private readonly calls: Counter<'dialect' | 'outcome'>;
  private readonly callDuration: Histogram<'dialect' | 'outcome'>;
  private readonly bytes: Counter;
  private readonly resyncs: Counter;

  constructor() {
    const registers = [this.registry];
    const metrics = this;
    collectDefaultMetrics({ register: this.registry });
    this.calls = new Counter({
      name: 'jumpseat_calls_total',
      help: 'Tool calls by dialect and outcome (completed, timeout, waiting_input, shell_exit, cancelled, refused, error).',
      labelNames: ['dialect', 'outcome'],
      registers,
    });
    this.callDuration = new Histogram({
      name: 'jumpseat_call_duration_seconds',
      help: 'Duration of tool calls that ran, from the start of their turn to their result.',
      labelNames: ['dialect', 'outcome'],
      buckets: CALL_DURATION_BUCKETS_S,
      registers,
    });
    new Gauge({
      name: 'jumpseat_shells',
      help: 'Shells the server knows, by dialect and state (exited ones are kept for their history).',
      labelNames: ['dialect', 'state'],
      registers,
      collect() {
        this.reset();
        const counts = new Map<string, { dialect: Dialect; state: string; count: number }>();
        for (const session of metrics.sessions()) {
          const key = `${session.dialect} ${session.state}`;
          const entry = counts.get(key) ?? {
            dialect: session.dialect,
            state: session.state,
            count: 0,
          };
          entry.count += 1;
          counts.set(key, entry);
        }
        for (const { dialect, state, count } of counts.values())
          this.set({ dialect, state }, count);
      },
    });
    new Gauge({
      name: 'jumpseat_viewers',
      help: 'People and programs watching a shell live, summed over every shell.',
      registers,
      collect() {
        this.set(metrics.sessions().reduce((sum, session) => sum + session.viewers, 0));
      },
    });
    this.bytes = new Counter({
      name: 'jumpseat_streamed_bytes_total',
      help: 'Terminal output bytes sent to live viewers (each viewer counts).',
      registers,
    });
    this.resyncs = new Counter({
      name: 'jumpseat_viewer_resyncs_total',
      help: 'Times a viewer that fell too far behind was sent a fresh snapshot.',
      registers,
    });
  }

  /** Counts the engine's calls and reads its shells at scrape time; dispose to stop. */
  observe(source: MetricsSource): Disposable {
    this.sessions = () => source.sessions();
    return source.onCallFinished((call) => this.callFinished(call));
  }

  callFinished(call: FinishedCall): void {
    const labels = { dialect: call.dialect, outcome: call.outcome };
    this.calls.inc(labels);
    if (call.outcome !== 'refused' && call.outcome !== 'error') {
      this.callDuration.observe(labels, call.durationMs / 1000);
    }
  }

  /** For the live hub: `count` output bytes were sent to one viewer. */
  bytesStreamed(count: number): void {
    if (count > 0) this.bytes.inc(count);
  }

  /** For the live hub: a viewer was resynced from a fresh snapshot. */
  viewerResynced(): void {
    this.resyncs.inc();
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
