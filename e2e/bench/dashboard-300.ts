/**
 * `npm run bench:dashboard`: the dashboard with 300 live shells in real Chromium against a real
 * server. Figures: first paint (navigation to the 300 rows drawn, and the browser's first
 * contentful paint), the cost of one redraw, and update latency — from a shell's state change
 * on the server (its `stateSince`) to its row showing the new state — while all 300 shells
 * stream state changes (every shell runs calls, each going running → idle). Prints a summary
 * and one JSON line. Not part of `npm test`: it takes a minute or two and the whole machine.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../support/chromium.ts';
import { startServerProcess, stopServerProcess } from '../support/server-process.ts';

const SHELLS = Number(process.env.BENCH_SHELLS ?? 300);
/** Calls in flight at once while shells are started and while they stream. */
const CONCURRENCY = 24;
/** Rounds of one call per shell while the dashboard watches (each is two state changes). */
const ROUNDS = 3;
const PAINT_RUNS = 5;

async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(runners);
}

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const round = (ms: number): number => Math.round(ms * 10) / 10;

async function main(): Promise<void> {
  const executablePath = findChromium();
  if (executablePath === undefined) throw new Error('no Chromium (set JUMPSEAT_CHROMIUM)');
  const dir = mkdtempSync(join(tmpdir(), 'jumpseat-bench-dashboard-'));
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace);
  const token = `js_bench_${randomBytes(18).toString('hex')}`;
  const server = await startServerProcess({ dataDir: join(dir, 'data'), workspace, token });
  const agents = Array.from({ length: SHELLS }, (_, i) => `bench-${String(i).padStart(3, '0')}`);
  const call = async (agent: string, command: string): Promise<void> => {
    const response = await fetch(`${server.origin}/api/agents/${agent}/bash`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command }),
    });
    if (response.status !== 200)
      throw new Error(`${agent}: ${response.status} ${await response.text()}`);
  };
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    const startedShells = performance.now();
    await pool(agents, CONCURRENCY, (agent) => call(agent, 'true'));
    const shellsMs = performance.now() - startedShells;

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // When each dashboard message arrives (before the page handles it): the delivery part of
    // the latency, apart from the page's own part.
    await page.addInitScript(() => {
      const arrived: number[] = [];
      Object.assign(window, { benchArrived: arrived, benchArriving: false });
      const descriptor = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage');
      Object.defineProperty(WebSocket.prototype, 'onmessage', {
        configurable: true,
        get() {
          return descriptor?.get?.call(this);
        },
        set(handler: ((event: MessageEvent) => void) | null) {
          const wrapped =
            handler === null
              ? null
              : (event: MessageEvent) => {
                  if (
                    (window as unknown as { benchArriving: boolean }).benchArriving &&
                    typeof event.data === 'string'
                  ) {
                    const message = JSON.parse(event.data) as {
                      type?: string;
                      session?: { stateSince?: string };
                    };
                    const since = Date.parse(message.session?.stateSince ?? '');
                    if (message.type === 'session' && !Number.isNaN(since))
                      arrived.push(Date.now() - since);
                  }
                  handler(event);
                };
          descriptor?.set?.call(this, wrapped);
        },
      });
    });
    await page.goto(`${server.origin}/login?token=${token}`);
    const paints: { rows: number; fcp: number }[] = [];
    for (let run = 0; run < PAINT_RUNS; run++) {
      await page.goto(`${server.origin}/`);
      await page.waitForFunction(
        (count) => document.querySelectorAll('[data-testid="session-row"]').length === count,
        SHELLS,
      );
      paints.push(
        await page.evaluate(() => ({
          rows: performance.getEntriesByName('jumpseat:dashboard-rendered')[0]?.startTime ?? -1,
          fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
        })),
      );
    }
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="connection"]')?.getAttribute('data-state') === 'live',
    );

    // Every row's state changes, timed in the page against the server's stateSince.
    await page.evaluate(() => {
      Object.assign(window, { benchArriving: true });
      const seen: number[] = [];
      const longTasks: number[] = [];
      Object.assign(window, { benchSeen: seen, benchLongTasks: longTasks });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) longTasks.push(entry.duration);
      }).observe({ type: 'longtask', buffered: false });
      performance.clearMeasures('jumpseat:dashboard-render');
      const body = document.querySelector('tbody');
      if (body === null) throw new Error('no table');
      new MutationObserver((records) => {
        const now = Date.now();
        for (const record of records) {
          const row = record.target as HTMLElement;
          const since = Date.parse(row.dataset.stateSince ?? '');
          if (!Number.isNaN(since)) seen.push(now - since);
        }
      }).observe(body, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
    });
    const streamStart = performance.now();
    for (let r = 0; r < ROUNDS; r++) {
      await pool(agents, CONCURRENCY, (agent) => call(agent, 'sleep 0.05'));
    }
    const streamMs = performance.now() - streamStart;
    // Let the last updates land.
    await page.waitForTimeout(500);
    const { seen, arrived, longTasks, renders } = await page.evaluate(() => ({
      seen: (window as unknown as { benchSeen: number[] }).benchSeen,
      arrived: (window as unknown as { benchArrived: number[] }).benchArrived,
      longTasks: (window as unknown as { benchLongTasks: number[] }).benchLongTasks,
      renders: performance
        .getEntriesByName('jumpseat:dashboard-render')
        .map((entry) => entry.duration),
    }));
    const figures = {
      shells: SHELLS,
      startShellsMs: Math.round(shellsMs),
      firstPaintRowsMsMedian: round(
        quantile(
          paints.map((p) => p.rows),
          0.5,
        ),
      ),
      firstContentfulPaintMsMedian: round(
        quantile(
          paints.map((p) => p.fcp),
          0.5,
        ),
      ),
      stateChangesSeen: seen.length,
      stateChangesPerSecond: Math.round(seen.length / (streamMs / 1000)),
      updateLatencyMs: {
        p50: round(quantile(seen, 0.5)),
        p95: round(quantile(seen, 0.95)),
        p99: round(quantile(seen, 0.99)),
        max: round(Math.max(...seen)),
      },
      deliveryLatencyMs: {
        p50: round(quantile(arrived, 0.5)),
        p95: round(quantile(arrived, 0.95)),
        max: round(Math.max(...arrived)),
      },
      redraws: renders.length,
      redrawMs: {
        p50: round(quantile(renders, 0.5)),
        p95: round(quantile(renders, 0.95)),
        max: round(Math.max(...renders)),
      },
      longTasksOver50Ms: longTasks.length,
      longestTaskMs: round(Math.max(0, ...longTasks)),
    };
    process.stdout.write(
      [
        `dashboard with ${SHELLS} live shells (Chromium ${browser.version()}, 1280×800)`,
        `  shells started in ${figures.startShellsMs} ms`,
        `  first paint: ${SHELLS} rows drawn at ${figures.firstPaintRowsMsMedian} ms after navigation (median of ${PAINT_RUNS}); first contentful paint ${figures.firstContentfulPaintMsMedian} ms`,
        `  streaming: ${figures.stateChangesSeen} state changes at ${figures.stateChangesPerSecond}/s`,
        `  update latency (server state change → row shows it): p50 ${figures.updateLatencyMs.p50} ms, p95 ${figures.updateLatencyMs.p95} ms, p99 ${figures.updateLatencyMs.p99} ms, max ${figures.updateLatencyMs.max} ms`,
        `  of which delivery (server state change → message in the page): p50 ${figures.deliveryLatencyMs.p50} ms, p95 ${figures.deliveryLatencyMs.p95} ms, max ${figures.deliveryLatencyMs.max} ms`,
        `  redraws: ${figures.redraws}, each p50 ${figures.redrawMs.p50} ms, p95 ${figures.redrawMs.p95} ms, max ${figures.redrawMs.max} ms; long tasks (>50 ms): ${figures.longTasksOver50Ms}, longest ${figures.longestTaskMs} ms`,
        JSON.stringify(figures),
        '',
      ].join('\n'),
    );
  } finally {
    await browser.close();
    await stopServerProcess(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
