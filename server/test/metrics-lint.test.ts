/**
 * /metrics holds to `promtool check metrics` (its rules, in support/promlint.ts, or promtool
 * itself where installed), reports every dialect, state and outcome with 0 included, and
 * puts a timed-out call in a bucket of its own: the buckets go past the largest timeout.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_OUTCOMES, DIALECTS, SESSION_STATES } from '../../shared/src/api.ts';
import { callDurationBuckets } from '../src/ops/metrics.ts';
import { startServer, type TestServer } from './support/http-server.ts';
import { parseExposition, promlint } from './support/promlint.ts';

/** A short deadline, so a timed-out call is quick; pwsh keeps a longer one (the max). */
const BASH_TIMEOUT_MS = 1000;
const PWSH_TIMEOUT_MS = 4000;

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    flags: [
      '--bash-timeout-ms',
      String(BASH_TIMEOUT_MS),
      '--pwsh-timeout-ms',
      String(PWSH_TIMEOUT_MS),
    ],
  });
});
afterAll(async () => {
  await server.close();
});

async function scrape(): Promise<string> {
  const response = await server.request('/metrics', { token: server.adminToken });
  expect(response.status).toBe(200);
  return response.text();
}

const promtoolInstalled = spawnSync('promtool', ['--version']).status === 0;

/** The finite buckets of bash's timed-out calls' durations: each bound's count, in order. */
async function timeoutBuckets(): Promise<Map<number, number>> {
  const histogram = parseExposition(await scrape()).find(
    (family) => family.name === 'jumpseat_call_duration_seconds',
  );
  const series =
    histogram?.samples.filter(
      (s) =>
        s.name.endsWith('_bucket') &&
        s.labels.dialect === 'bash' &&
        s.labels.outcome === 'timeout' &&
        s.labels.le !== '+Inf',
    ) ?? [];
  return new Map(series.map((s) => [Number(s.labels.le), s.value]));
}

describe("GET /metrics by promtool's rules", () => {
  it('the linter finds what promtool finds (the control)', () => {
    const bad = [
      '# HELP handles_total Open handles.',
      '# TYPE handles_total gauge',
      'handles_total 3',
      '# TYPE requests counter',
      'requests 1',
      '# HELP latencyMs Latency.',
      '# TYPE latencyMs gauge',
      'latencyMs 1',
    ].join('\n');
    expect(promlint(bad)).toEqual([
      'handles_total: non-counter metrics should not have "_total" suffix',
      'requests: no help text',
      'requests: counter metrics should have "_total" suffix',
      "latencyMs: metric names should be written in 'snake_case' not 'camelCase'",
    ]);
  });

  it('is clean after calls of every kind', async () => {
    expect((await server.post('/api/agents/lint/bash', { command: 'true' })).status).toBe(200);
    expect((await server.post('/api/agents/lint/bash', { command: '  ' })).status).toBe(400);
    const text = await scrape();
    expect(promlint(text)).toEqual([]);
    if (promtoolInstalled) {
      const checked = spawnSync('promtool', ['check', 'metrics'], { input: text });
      expect([checked.status, checked.stderr.toString()]).toEqual([0, '']);
    } else {
      console.log('promtool not installed: checked by its rules (support/promlint.ts) only');
    }
  });

  it('reports every dialect, state and outcome, 0 included', async () => {
    const families = parseExposition(await scrape());
    const shells = families.find((family) => family.name === 'jumpseat_shells');
    const calls = families.find((family) => family.name === 'jumpseat_calls_total');
    for (const dialect of DIALECTS) {
      for (const state of SESSION_STATES.filter((s) => s !== 'ended')) {
        expect(
          shells?.samples.some((s) => s.labels.dialect === dialect && s.labels.state === state),
          `${dialect} ${state}`,
        ).toBe(true);
      }
      for (const outcome of [...CALL_OUTCOMES, 'refused', 'error']) {
        expect(
          calls?.samples.some((s) => s.labels.dialect === dialect && s.labels.outcome === outcome),
          `${dialect} ${outcome}`,
        ).toBe(true);
      }
    }
    const pwshRunning = shells?.samples.find(
      (s) => s.labels.dialect === 'pwsh' && s.labels.state === 'running',
    );
    expect(pwshRunning?.value).toBe(0);
  });

  it('puts a timed-out call in a finite bucket past the largest timeout', async () => {
    const buckets = callDurationBuckets(PWSH_TIMEOUT_MS);
    expect(buckets.at(-1)).toBeGreaterThan(PWSH_TIMEOUT_MS / 1000);
    expect(callDurationBuckets(300_000).at(-1)).toBeGreaterThan(300);

    // Counted from here: an earlier call here may have timed out as well (a 1 s deadline
    // covers a new shell's start, which a loaded machine can take longer than).
    const before = await timeoutBuckets();
    const timedOut = await server.post('/api/agents/lint-timeout/bash', { command: 'sleep 30' });
    expect(timedOut.status).toBe(200);
    const after = await timeoutBuckets();
    expect([...after.keys()]).toEqual(buckets);
    const added = (le: number): number => (after.get(le) ?? 0) - (before.get(le) ?? 0);
    // The call took a little over its 1 s deadline: counted in the next finite bucket, not
    // only in +Inf.
    const next = buckets.find((bucket) => bucket > BASH_TIMEOUT_MS / 1000) as number;
    expect(added(next)).toBe(1);
    expect(added(1)).toBe(0);
  });
});
