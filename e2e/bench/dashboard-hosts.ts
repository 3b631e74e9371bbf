/**
 * `npm run bench:dashboard` (issue 23.6, "one dashboard for thousands of shells"): a real
 * control plane (`--local-shells off`) and three real `jumpseat host` processes joined to it,
 * 3,000 idle shells spread across them, and the dashboard in real Chromium. Figures, each a
 * ratio against the issue's target (the line format of server/bench/bench-server.ts):
 *
 * - first paint: navigation to the first rows of the list painted in the viewport (<= 1 s,
 *   median of a few loads);
 * - state change → row: calls on random shells (a few at a time, while other shells churn),
 *   from the call's start to its row showing `running`, and from the server's change back to
 *   `idle` to the list no longer showing it running (<= 300 ms at p95, both legs together);
 * - style and layout per frame: the longest sum of style recalculation and layout within one
 *   task of the page's main thread (a frame's rendering, or script forcing a layout), from a
 *   Chrome trace (`devtools.timeline`) taken while the list scrolls end to end and while
 *   updates flow (<= 50 ms).
 *
 * `--shells N` (3000), `--hosts N` (3), `--sandbox bwrap|off` (bwrap: the hosts' default
 * sandbox; off when the machine cannot hold that many sandboxes — the output says which).
 * `--then-web DIR` measures again against the same shells with the web app built in DIR
 * (main's, say), for a before and after on one fleet. Not part of `npm test`: it takes minutes and the whole machine. `--legacy` runs the old
 * single-server bench of 300 shells (dashboard-300.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { freemem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from '@playwright/test';
import { report } from '../../server/bench/bench-server.ts';
import { CHROMIUM_ARGS, findChromium } from '../support/chromium.ts';
import {
  type ServerProcess,
  startServerProcess,
  stopServerProcess,
} from '../support/server-process.ts';

const FIRST_PAINT_TARGET_MS = 1000;
const LATENCY_P95_TARGET_MS = 300;
const STYLE_LAYOUT_TARGET_MS = 50;
/** Shells started at once while filling the hosts. */
const START_CONCURRENCY = 8;
const PAINT_RUNS = 5;
/** Timed calls (each two state changes), and how many run at once. */
const TIMED_CALLS = 60;
const TIMED_CONCURRENCY = 4;
/** Other shells' calls in flight meanwhile: updates flow while the timed ones are measured. */
const CHURN_CONCURRENCY = 4;
const JOIN_DEADLINE_MS = 120_000;
const STOP_GRACE_MS = 30_000;

function option(argv: readonly string[], flag: string, fallback: string): string {
  const at = argv.indexOf(flag);
  return at === -1 ? fallback : (argv[at + 1] ?? fallback);
}
function count(argv: readonly string[], flag: string, fallback: number): number {
  const value = Number(option(argv, flag, String(fallback)));
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${flag} takes a whole number`);
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const ms = (value: number): string => `${value.toFixed(1)} ms`;

/** Runs `work(i)` for i in 0..count-1, `width` at a time. */
async function pooled(total: number, width: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, total) }, async () => {
      while (next < total) await work(next++);
    }),
  );
}

interface Host {
  readonly name: string;
  readonly child: ChildProcess;
  readonly dir: string;
  /** The end of its stderr, for a failure's message. */
  readonly log: { text: string };
}

/** Every process this bench started, stopped in `finally` and on Ctrl-C. */
const hosts: Host[] = [];
let plane: ServerProcess | undefined;
let browser: Browser | undefined;
const dirs: string[] = [];

async function stopAll(): Promise<void> {
  await browser?.close().catch(() => {});
  browser = undefined;
  await Promise.all(
    hosts.splice(0).map(async (host) => {
      if (host.child.exitCode === null && host.child.signalCode === null) {
        const exited = new Promise((resolve) => host.child.once('exit', resolve));
        host.child.kill('SIGTERM');
        const timer = setTimeout(() => host.child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
    }),
  );
  if (plane !== undefined) await stopServerProcess(plane);
  plane = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

async function main(argv: readonly string[]): Promise<boolean> {
  const shells = count(argv, '--shells', 3000);
  const hostCount = count(argv, '--hosts', 3);
  const sandbox = option(argv, '--sandbox', 'bwrap');
  if (sandbox !== 'bwrap' && sandbox !== 'off') throw new Error('--sandbox takes bwrap or off');
  const executablePath = findChromium();
  if (executablePath === undefined) throw new Error('no Chromium (set JUMPSEAT_CHROMIUM)');

  const dir = mkdtempSync(join(tmpdir(), 'jumpseat-bench-dashboard-hosts-'));
  dirs.push(dir);
  const token = `js_bench_${randomBytes(18).toString('hex')}`;
  plane = await startServerProcess({
    dataDir: join(dir, 'plane'),
    token,
    flags: ['--local-shells', 'off'],
  });
  const origin = plane.origin;
  const api = async (path: string, body?: object): Promise<Response> =>
    fetch(`${origin}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const call = async (agent: string, command: string): Promise<void> => {
    const response = await api(`/api/agents/${agent}/bash`, { command });
    if (response.status !== 200)
      throw new Error(`${agent}: HTTP ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };

  // The hosts: each under a host token of its own, small limits so thousands of shells fit.
  const perHost = Math.ceil(shells / hostCount);
  for (let i = 1; i <= hostCount; i++) {
    const name = `dash-host-${i}`;
    const minted = await api('/api/tokens', { role: 'host', name });
    if (!minted.ok) throw new Error(`minting ${name}'s token: HTTP ${minted.status}`);
    const { token: hostToken } = (await minted.json()) as { token: string };
    const hostDir = join(dir, name);
    mkdirSync(join(hostDir, 'workspace'), { recursive: true });
    const child = spawn(
      process.execPath,
      [
        ...['--import', 'tsx', 'server/src/cli/bin.ts', 'host', '--join', origin],
        ...['--data-dir', join(hostDir, 'data'), '--workspace', join(hostDir, 'workspace')],
        ...['--max-shells', String(perHost + 50), '--sandbox', sandbox, '--network', 'off'],
        ...['--max-memory', '256M', '--max-processes', '64', '--tmp-size', '16M'],
        // A file system per workspace (mkfs for each new shell) is the walls' cost, not the
        // dashboard's: without it, 3,000 shells start in minutes rather than a quarter hour.
        '--workspace-quota',
        'off',
      ],
      { env: { ...process.env, JUMPSEAT_TOKEN: hostToken }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const log = { text: '' };
    child.stderr?.on('data', (chunk: Buffer) => {
      log.text = (log.text + chunk.toString()).slice(-4000);
    });
    hosts.push({ name, child, dir: hostDir, log });
  }
  const joinBy = Date.now() + JOIN_DEADLINE_MS;
  for (;;) {
    const listed = (await (await api('/api/hosts')).json()) as { name: string; state: string }[];
    const joined = hosts.filter((host) =>
      listed.some((h) => h.name === host.name && h.state === 'connected'),
    );
    if (joined.length === hosts.length) break;
    const dead = hosts.find((host) => host.child.exitCode !== null);
    if (dead !== undefined) throw new Error(`${dead.name} exited:\n${dead.log.text}`);
    if (Date.now() > joinBy) throw new Error('the hosts did not join in time');
    await sleep(100);
  }

  // The shells: placement spreads new shells to the least loaded host.
  const agents = Array.from({ length: shells }, (_, i) => `dash-${String(i).padStart(4, '0')}`);
  const filling = performance.now();
  let started = 0;
  await pooled(shells, START_CONCURRENCY, async (i) => {
    const agent = agents[i] as string;
    for (let attempt = 1; ; attempt++) {
      try {
        await call(agent, 'true');
        break;
      } catch (error) {
        if (attempt === 3) throw error;
        await sleep(500);
      }
    }
    started += 1;
    if (started % 500 === 0)
      process.stderr.write(
        `  ${started} shells started (${Math.round((performance.now() - filling) / 1000)} s, ${Math.round(freemem() / 2 ** 20)} MiB free)\n`,
      );
  });
  const fillSeconds = (performance.now() - filling) / 1000;
  process.stderr.write(`  ${shells} shells started in ${fillSeconds.toFixed(0)} s\n`);
  const live = (await (await api('/api/sessions')).json()) as { host?: string; state: string }[];
  const perHostCount = new Map<string, number>();
  for (const session of live)
    perHostCount.set(session.host ?? '-', (perHostCount.get(session.host ?? '-') ?? 0) + 1);

  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  const setting: Setting = {
    origin,
    token,
    agents,
    sandbox,
    hostCount,
    perHostCount,
    fillSeconds,
    live: live.length,
  };
  let ok = await measure(browser, setting, 'dist/web');
  // The same shells, another build of the web app (main's, to compare): the server reads
  // the app's files per request, so the directories change places under it.
  const other = option(argv, '--then-web', '');
  if (other !== '') {
    const here = join(process.cwd(), 'dist', 'web');
    const aside = `${here}.bench-aside`;
    renameSync(here, aside);
    renameSync(other, here);
    try {
      ok = (await measure(browser, setting, other)) && ok;
    } finally {
      renameSync(here, other);
      renameSync(aside, here);
    }
  }
  return ok;
}

interface Setting {
  readonly origin: string;
  readonly token: string;
  readonly agents: readonly string[];
  readonly sandbox: string;
  readonly hostCount: number;
  readonly perHostCount: ReadonlyMap<string, number>;
  readonly fillSeconds: number;
  readonly live: number;
}

async function measure(browser: Browser, setting: Setting, build: string): Promise<boolean> {
  const { origin, token, agents, sandbox, hostCount, perHostCount, fillSeconds } = setting;
  const live = { length: setting.live };
  const call = async (agent: string, command: string): Promise<void> => {
    const response = await fetch(`${origin}/api/agents/${agent}/bash`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command }),
    });
    if (response.status !== 200)
      throw new Error(`${agent}: HTTP ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript({ content: inPage(watchFirstRows) });
  await page.goto(`${origin}/login?token=${token}`);
  await page.waitForURL(`${origin}/`);

  // (a) First paint: navigation to the first rows painted in the viewport.
  const paints: number[] = [];
  for (let run = 0; run < PAINT_RUNS; run++) {
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (window as unknown as BenchWindow).benchFirstRows > 0);
    paints.push(await page.evaluate(() => (window as unknown as BenchWindow).benchFirstRows));
  }
  await page.waitForFunction(
    () =>
      document.querySelector('[data-testid="connection"]')?.getAttribute('data-state') === 'live',
  );
  const rowsInDom = await page.locator('[data-testid="session-row"]').count();

  // (b) and (c): timed calls while other shells churn, traced; then the list scrolled end to
  // end, still traced, with updates still flowing.
  await page.evaluate(inPage(watchStates));
  await browser.startTracing(page, {
    categories: ['devtools.timeline', 'toplevel'],
  });
  // Random shells, each timed once; the churn runs on the others.
  const timed = [...agents].sort(() => Math.random() - 0.5).slice(0, TIMED_CALLS);
  const others = agents.filter((agent) => !timed.includes(agent));
  let churning = true;
  let churned = 0;
  const churn = pooled(Number.MAX_SAFE_INTEGER, CHURN_CONCURRENCY, async () => {
    if (!churning) throw new Stop();
    await call(others[Math.floor(Math.random() * others.length)] as string, 'sleep 0.2');
    churned += 1;
  }).catch((error: unknown) => {
    if (!(error instanceof Stop)) throw error;
  });
  await pooled(timed.length, TIMED_CONCURRENCY, async (i) => {
    const agent = timed[i] as string;
    await page.evaluate((name) => (window as unknown as BenchWindow).benchWatch(name), agent);
    // The call is sent as the page is told when it started, not after the page has answered:
    // a busy page's answer took 100+ ms, which was counted as the dashboard's. The page is
    // told first (its message goes before the call), and looks at the row as soon as it is.
    const start = Date.now();
    const told = page.evaluate(
      ([name, at]) => (window as unknown as BenchWindow).benchCallStarted(name, at),
      [agent, start] as const,
    );
    await Promise.all([told, call(agent, 'sleep 0.5')]);
  });
  await page.waitForTimeout(1000);
  const scrolled = await scrollEndToEnd(page);
  churning = false;
  await churn;
  const trace = JSON.parse((await browser.stopTracing()).toString()) as Trace;
  const latencies = await page.evaluate(() => (window as unknown as BenchWindow).benchLatencies);
  const frames = styleAndLayoutPerTask(trace);

  const toRunning = latencies.map((l) => l.toRunning).filter((v): v is number => v !== null);
  const toIdle = latencies.map((l) => l.toIdle).filter((v): v is number => v !== null);
  const missing = timed.length * 2 - toRunning.length - toIdle.length;
  const both = [...toRunning, ...toIdle];
  const p95 = missing > 0 ? Number.POSITIVE_INFINITY : quantile(both, 0.95);
  const firstPaint = quantile(paints, 0.5);
  const worst = frames.reduce((a, b) => (b.ms > a.ms ? b : a), { ms: 0, at: 0, kind: '' });
  const over = frames.filter((f) => f.ms > STYLE_LAYOUT_TARGET_MS).length;

  const hostsSaid = [...perHostCount].map(([host, n]) => `${host} ${n}`).join(', ');
  console.log(
    `dashboard with ${live.length} live shells on ${hostCount} joined hosts (${hostsSaid}); sandbox ${sandbox === 'off' ? 'OFF on the hosts (--sandbox off: this machine cannot hold that many sandboxes; the figures are the dashboard’s)' : 'bwrap'}, --network off, --workspace-quota off; web app ${build}; Chromium ${browser.version()}, 1280×800; shells started in ${fillSeconds.toFixed(0)} s; ${rowsInDom} rows in the DOM`,
  );
  const results = [
    report(
      `first paint of ${live.length} shells: against ${FIRST_PAINT_TARGET_MS} ms`,
      firstPaint / FIRST_PAINT_TARGET_MS,
      1,
      `(median ${ms(firstPaint)} of ${PAINT_RUNS} loads, from navigation to the first rows painted; each ${paints.map((p) => p.toFixed(0)).join(', ')} ms)`,
    ),
    report(
      `state change reaches its row: p95 against ${LATENCY_P95_TARGET_MS} ms`,
      p95 / LATENCY_P95_TARGET_MS,
      1,
      `(${timed.length} calls, ${TIMED_CONCURRENCY} at once, ${CHURN_CONCURRENCY} other calls in flight; call start → row running p50 ${ms(quantile(toRunning, 0.5))} p95 ${ms(quantile(toRunning, 0.95))}; server back to idle → row idle p50 ${ms(quantile(toIdle, 0.5))} p95 ${ms(quantile(toIdle, 0.95))}${missing > 0 ? `; ${missing} changes never shown` : ''})`,
    ),
    report(
      `longest style and layout in one frame: against ${STYLE_LAYOUT_TARGET_MS} ms`,
      worst.ms / STYLE_LAYOUT_TARGET_MS,
      1,
      `(${ms(worst.ms)} in a ${worst.kind} task; ${frames.length} tasks with style or layout, ${over} over ${STYLE_LAYOUT_TARGET_MS} ms, p95 ${ms(
        quantile(
          frames.map((f) => f.ms),
          0.95,
        ),
      )}; traced while ${TIMED_CALLS + churned} calls ran and the list scrolled ${scrolled.steps} steps end to end)`,
    ),
  ];
  console.log(
    JSON.stringify({
      shells: live.length,
      hosts: Object.fromEntries(perHostCount),
      sandbox,
      rowsInDom,
      firstPaintMs: paints,
      toRunningMs: toRunning,
      toIdleMs: toIdle,
      longestStyleLayoutMs: worst.ms,
      tasksOver50Ms: over,
    }),
  );
  await context.close();
  return results.every(Boolean);
}

class Stop extends Error {}

/**
 * A function of this file as a script for the page: tsx keeps function names with a
 * `__name` helper the page has not got.
 */
function inPage(fn: () => void): string {
  return `(() => { const __name = (f) => f; (${fn.toString()})(); })()`;
}

interface BenchWindow {
  benchFirstRows: number;
  benchWatch(agent: string): void;
  benchCallStarted(agent: string, at: number): void;
  benchLatencies: { agent: string; toRunning: number | null; toIdle: number | null }[];
}

/**
 * In the page before its scripts: the time (from navigation) of the first frame painted with
 * a session row in the viewport — a frame's rendering follows its animation-frame callbacks,
 * and a message posted from one is handled once that frame is drawn.
 */
function watchFirstRows(): void {
  const w = window as unknown as BenchWindow;
  w.benchFirstRows = 0;
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    w.benchFirstRows = performance.now();
  };
  const look = (): void => {
    const row = document.querySelector('[data-testid="session-row"]');
    const box = row?.getBoundingClientRect();
    if (box !== undefined && box.height > 0 && box.top < innerHeight) {
      channel.port2.postMessage(null);
      return;
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
  // Every socket message is shown to the bench's tap first (watchStates sets it).
  const Native = WebSocket;
  window.WebSocket = class extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener('message', (event) =>
        (window as unknown as { benchSocketTap?: (data: unknown) => void }).benchSocketTap?.(
          event.data,
        ),
      );
    }
  };
}

/**
 * In the page: for each watched agent, when its row first shows `running` after its call
 * started (against the call's start, same clock), and then when the list stops showing it
 * running (its row says `idle`, or it left the rendered rows) against the server's change
 * back (the idle update's `stateSince`, read off the dashboard's socket messages).
 */
function watchStates(): void {
  const w = window as unknown as BenchWindow;
  const watching = new Map<
    string,
    { start: number | null; running: number | null; idleSince: number | null }
  >();
  const idleSince = new Map<string, number>();
  w.benchLatencies = [];
  w.benchWatch = (agent) => {
    watching.set(agent, { start: null, running: null, idleSince: null });
  };
  w.benchCallStarted = (agent, at) => {
    const watch = watching.get(agent);
    if (watch !== undefined) watch.start = at;
    // The row may show the call already (this message can come after the dashboard's).
    check();
  };
  // The idle update's stateSince per agent, from the socket (the page gets the same message).
  const seenMessage = (data: unknown): void => {
    if (typeof data !== 'string' || !data.includes('"session"')) return;
    try {
      const message = JSON.parse(data) as {
        type?: string;
        session?: { agent?: string; state?: string; stateSince?: string };
      };
      const session = message.session;
      if (message.type === 'session' && session?.agent !== undefined && session.state === 'idle')
        idleSince.set(session.agent, Date.parse(session.stateSince ?? ''));
    } catch {}
  };
  (window as unknown as { benchSocketTap: (data: unknown) => void }).benchSocketTap = seenMessage;
  const check = (): void => {
    const now = Date.now();
    for (const [agent, watch] of watching) {
      if (watch.start === null) continue;
      const shown = document.querySelector(
        `[data-testid="session-row"][data-agent="${agent}"][data-state="running"]`,
      );
      if (watch.running === null) {
        if (shown !== null) watch.running = now;
        continue;
      }
      if (shown === null) {
        const since = idleSince.get(agent);
        w.benchLatencies.push({
          agent,
          toRunning: watch.running - watch.start,
          toIdle: since === undefined || Number.isNaN(since) ? null : now - since,
        });
        watching.delete(agent);
      }
    }
  };
  new MutationObserver(check).observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['data-state'],
  });
}

/** Scrolls the list to its end and back with the mouse wheel, a frame or two per step. */
async function scrollEndToEnd(page: Page): Promise<{ steps: number }> {
  await page.mouse.move(640, 600);
  let steps = 0;
  for (const direction of [1, -1]) {
    for (let stuck = 0; stuck < 3; ) {
      const before = await page.evaluate(() => scrollY);
      await page.mouse.wheel(0, direction * 1200);
      await page.waitForTimeout(32);
      steps += 1;
      stuck = (await page.evaluate(() => scrollY)) === before ? stuck + 1 : 0;
      if (steps > 2000) break;
    }
  }
  return { steps };
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}
interface Trace {
  traceEvents: TraceEvent[];
}

const STYLE_LAYOUT = new Set(['UpdateLayoutTree', 'Layout']);

/**
 * Style and layout time per top-level task of the renderer's main thread (a frame's rendering
 * is one task; script that forces a layout is another), from complete ('X') or begin/end events.
 */
function styleAndLayoutPerTask(trace: Trace): { ms: number; at: number; kind: string }[] {
  const events = trace.traceEvents;
  const mains = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const onMain = events.filter((e) => mains.has(`${e.pid}:${e.tid}`));
  const spans = (
    pick: (e: TraceEvent) => boolean,
  ): { start: number; end: number; name: string }[] => {
    const out: { start: number; end: number; name: string }[] = [];
    const open = new Map<string, number[]>();
    for (const e of onMain) {
      if (!pick(e)) continue;
      const key = `${e.pid}:${e.tid}:${e.name}`;
      if (e.ph === 'X') out.push({ start: e.ts, end: e.ts + (e.dur ?? 0), name: e.name });
      else if (e.ph === 'B') open.set(key, [...(open.get(key) ?? []), e.ts]);
      else if (e.ph === 'E') {
        const begun = open.get(key)?.pop();
        if (begun !== undefined) out.push({ start: begun, end: e.ts, name: e.name });
      }
    }
    return out.sort((a, b) => a.start - b.start);
  };
  const tasks = spans((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask');
  // Outermost only: a nested task is part of the one around it.
  const top: { start: number; end: number; name: string }[] = [];
  for (const task of tasks) {
    const last = top[top.length - 1];
    if (last !== undefined && task.start < last.end) continue;
    top.push(task);
  }
  const work = spans((e) => STYLE_LAYOUT.has(e.name));
  const outer: { start: number; end: number; name: string }[] = [];
  for (const span of work) {
    const last = outer[outer.length - 1];
    if (last !== undefined && span.start < last.end) continue;
    outer.push(span);
  }
  const perTask = new Map<number, { ms: number; at: number; kind: string }>();
  let t = 0;
  for (const span of outer) {
    while (t < top.length && (top[t]?.end ?? 0) <= span.start) t++;
    const task = top[t];
    const key = task !== undefined && task.start <= span.start ? t : -1 - perTask.size;
    const entry = perTask.get(key) ?? { ms: 0, at: span.start, kind: '' };
    entry.ms += (span.end - span.start) / 1000;
    entry.kind = entry.kind === '' || entry.kind === span.name ? span.name : 'style+layout';
    perTask.set(key, entry);
  }
  return [...perTask.values()];
}

let stopping = false;
const onSignal = (signal: NodeJS.Signals): void => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`${signal}: stopping the hosts and the control plane\n`);
  void stopAll().finally(() => process.exit(130));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const argv = process.argv.slice(2);
if (argv.includes('--legacy')) {
  await import('./dashboard-300.ts');
} else {
  let ok = false;
  try {
    ok = await main(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    for (const host of hosts)
      if (host.log.text !== '') process.stderr.write(`--- ${host.name}:\n${host.log.text}\n`);
  } finally {
    await stopAll();
  }
  process.exitCode = ok ? 0 : 1;
}
