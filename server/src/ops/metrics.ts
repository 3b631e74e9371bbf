/**
 * The Prometheus metrics of one server (`GET /metrics`): calls by dialect and outcome, call
 * durations, shells by state, viewers, bytes streamed to viewers and viewer resyncs. One
 * registry per Metrics object, never prom-client's global one, so several servers in one
 * process (tests) count apart.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import {
  CALL_OUTCOMES,
  DIALECTS,
  type HostInfo,
  SESSION_STATES,
  type SessionInfo,
} from '../../../shared/src/api.ts';
import { DEFAULT_TIMEOUT_MS } from '../config/config.ts';
import type { Disposable } from '../pty/disposable.ts';
import type { CallEndKind, FinishedCall } from '../tool/tool-service.ts';

/**
 * Seconds. A call takes from a millisecond (`true`) to its timeout (300 s by default); these
 * cover that range roughly evenly on a log scale. callDurationBuckets adds buckets past the
 * largest configured timeout, so a timed-out call (which answers a little after its deadline)
 * lands in a bucket of its own rather than in +Inf.
 */
const CALL_DURATION_BUCKETS_S = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];
/** A timed-out call answers after its deadline (the tree is ended first): headroom for it. */
const TIMEOUT_OVERSHOOT = 1.1;

/** The buckets for calls whose longest deadline is `maxTimeoutMs`: doubling past it. */
export function callDurationBuckets(maxTimeoutMs: number): number[] {
  const limit = (maxTimeoutMs / 1000) * TIMEOUT_OVERSHOOT;
  const buckets = CALL_DURATION_BUCKETS_S.filter((bucket) => bucket < limit);
  let last = buckets.at(-1) ?? 1;
  while (last <= limit) {
    last *= 2;
    buckets.push(last);
  }
  return buckets;
}

/**
 * prom-client's default gauges named `*_total` (`nodejs_active_handles_total`, …): promtool
 * refuses `_total` on anything but a counter, and each has a labelled gauge without the
 * suffix (`nodejs_active_handles{type}`) that says the same and more.
 */
const TOTAL_NAMED_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Shell states the engine's live shells can be in (`ended` is history's, never live). */
const LIVE_STATES = SESSION_STATES.filter((state) => state !== 'ended');
/** How a call can end, as counted here. */
const CALL_ENDS: readonly CallEndKind[] = [...CALL_OUTCOMES, 'refused', 'error'];

export interface MetricsOptions {
  /** The largest per-call timeout configured (ms), so the duration buckets go past it. */
  readonly maxTimeoutMs?: number;
}

/** What the metrics read at scrape time: every shell the engine knows. */
export interface MetricsSource {
  sessions(): SessionInfo[];
  onCallFinished(listener: (call: FinishedCall) => void): Disposable;
}

const HOST_STATES: readonly HostInfo['state'][] = ['connected', 'unreachable', 'draining'];

export class Metrics {
  readonly registry = new Registry();
  private sessions: () => SessionInfo[] = () => [];
  private readonly calls: Counter<'dialect' | 'outcome'>;
  private readonly callDuration: Histogram<'dialect' | 'outcome'>;
  private readonly bytes: Counter;
  private readonly resyncs: Counter;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    const metrics = this;
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    for (const name of TOTAL_NAMED_GAUGES) this.registry.removeSingleMetric(name);
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
      buckets: callDurationBuckets(options.maxTimeoutMs ?? DEFAULT_TIMEOUT_MS),
      registers,
    });
    new Gauge({
      name: 'jumpseat_shells',
      help: 'Shells the server knows, by dialect and state (exited ones are kept for their history).',
      labelNames: ['dialect', 'state'],
      registers,
      collect() {
        // Every dialect and state, 0 included, so a state never vanishes from a graph.
        const counts = new Map<string, number>();
        for (const session of metrics.sessions()) {
          const key = `${session.dialect} ${session.state}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        for (const dialect of DIALECTS) {
          for (const state of LIVE_STATES) {
            this.set({ dialect, state }, counts.get(`${dialect} ${state}`) ?? 0);
          }
        }
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
    // Every dialect and outcome reads 0 before its first call.
    for (const dialect of DIALECTS) {
      for (const outcome of CALL_ENDS) {
        this.calls.inc({ dialect, outcome }, 0);
        if (outcome !== 'refused' && outcome !== 'error') {
          this.callDuration.zero({ dialect, outcome });
        }
      }
    }
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

  /**
   * Reads the joined hosts at scrape time (a control plane with `--local-shells off`):
   * `jumpseat_hosts{state}` and `jumpseat_host_shells{host}`. With replicas, `list` gives only
   * the hosts whose link this replica holds, so a sum over the replicas is right.
   */
  observeHosts(list: () => readonly HostInfo[]): void {
    const registers = [this.registry];
    new Gauge({
      name: 'jumpseat_hosts',
      help: 'Shell hosts joined to this control plane, by state (connected, unreachable, draining).',
      labelNames: ['state'],
      registers,
      collect() {
        const hosts = list();
        for (const state of HOST_STATES) {
          this.set({ state }, hosts.filter((host) => host.state === state).length);
        }
      },
    });
    new Gauge({
      name: 'jumpseat_host_shells',
      help: 'Live shells on each joined host.',
      labelNames: ['host'],
      registers,
      collect() {
        this.reset();
        for (const host of list()) this.set({ host: host.name }, host.shells);
      },
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
