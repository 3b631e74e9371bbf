/**
 * What a call costs the server (issue 22.6): the server process's CPU time per trivial call
 * over 2,000 calls one after another, and how many calls per second it answers with 100
 * agents calling at once in sandboxed shells. Both against the bounds; the CPU time
 * is the kernel's count for the whole server process (every thread: the recording worker
 * too), the same sum `process.cpuUsage` gives inside it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { findBwrap, probeBwrap } from '../src/launch/choose-launcher.ts';
import { call, firstCall, report, type Server, startServer, stopServer } from './bench-server.ts';
import { lightCaller } from './light-caller.ts';

const CPU_CALLS = 2000;
/**
 * Calls before the measured ones. A long-running server answers from optimised code: V8 still
 * compiles this path on its helper threads over the first few thousand calls (measured here:
 * about 0.25 ms per call of the first 2,000, under 0.05 after 6,000), a cost paid once.
 */
const WARM_CALLS = 4000;
/** The bound on the server's CPU per `bash("true")`, in ms. */
const CPU_PER_CALL_TARGET_MS = 0.3;
const AGENTS = 100;
/** How long the agents call as fast as they can. */
const THROUGHPUT_WINDOW_MS = 5000;
/** The bound, on a 2-core machine. */
const THROUGHPUT_TARGET_PER_S = 2000;
/** Linux's USER_HZ: what /proc counts CPU time in. */
const CLOCK_TICKS_PER_S = 100;

/** User plus system CPU time of process `pid` so far, in ms. */
function cpuMs(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  // Fields 14 and 15 (utime, stime), counted after the command name's closing parenthesis.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
}

/**
 * For context, the floor HTTP alone sets on this machine: a bare `node:http` server (no
 * framework, no shell) answering the same request with the same kind of JSON.
 */
const BARE_SERVER = [
  "const http = require('node:http');",
  'http.createServer((req, res) => {',
  "  let body = ''; req.on('data', (c) => { body += c; });",
  "  req.on('end', () => { res.setHeader('content-type', 'application/json');",
  "    res.end(JSON.stringify({ output: '', body: body.length })); });",
  "}).listen(0, '127.0.0.1', function () { console.log(this.address().port); });",
].join('\n');

/** CPU per request of a bare node:http server, over CPU_CALLS requests like the tool's. */
async function bareHttpCpuPerRequest(): Promise<number> {
  const child = spawn(process.execPath, ['-e', BARE_SERVER], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const url = `http://127.0.0.1:${line.trim()}/api/agents/bench-cpu/bash`;
    const post = async (): Promise<void> => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
        body: JSON.stringify({ command: 'true' }),
      });
      await response.json();
    };
    await post();
    const before = cpuMs(child.pid as number);
    for (let i = 0; i < CPU_CALLS; i++) await post();
    return (cpuMs(child.pid as number) - before) / CPU_CALLS;
  } finally {
    child.kill();
  }
}

/** CPU per call of the server `pid` over `calls` sequential calls, and their wall time. */
async function cpuOverCalls(server: Server, calls: number): Promise<{ cpu: number; wall: number }> {
  const pid = server.child.pid as number;
  const before = cpuMs(pid);
  const start = performance.now();
  for (let i = 0; i < calls; i++) await call(server, 'bench-cpu', 'true');
  return { cpu: (cpuMs(pid) - before) / calls, wall: (performance.now() - start) / calls };
}

/**
 * The server's CPU per call, over CPU_CALLS sequential calls on a warm shell of a warm server
 * (after WARM_CALLS; the figure while warming is printed too).
 */
export async function cpuPerCall(server: Server): Promise<boolean> {
  await call(server, 'bench-cpu', 'true');
  const warming = await cpuOverCalls(server, WARM_CALLS);
  const { cpu, wall } = await cpuOverCalls(server, CPU_CALLS);
  const bare = await bareHttpCpuPerRequest();
  return report(
    `server CPU per bash("true") (${CPU_CALLS} calls after ${WARM_CALLS})`,
    cpu / CPU_PER_CALL_TARGET_MS,
    1,
    `(${cpu.toFixed(3)} ms per call against ${CPU_PER_CALL_TARGET_MS} ms; ` +
      `${wall.toFixed(2)} ms wall per call; ${warming.cpu.toFixed(3)} ms per call over the ` +
      `first ${WARM_CALLS}; a bare node:http server answering the same request: ` +
      `${bare.toFixed(3)} ms)`,
  );
}

/**
 * Calls per second with AGENTS agents each calling `true` in a loop, sandboxed, on a warm
 * server, called through `node:http` (light-caller.ts).
 */
export async function throughputBenchmark(): Promise<boolean[]> {
  const bwrap = findBwrap(process.env);
  const why = bwrap === null ? 'bubblewrap is not installed' : probeBwrap(bwrap, 'on');
  if (why !== null) {
    console.log(`throughput with ${AGENTS} agents not measured: ${why}`);
    return [];
  }
  const server = await startServer(['--sandbox', 'bwrap']);
  try {
    const agents = Array.from({ length: AGENTS }, (_, i) => `bench-many-${i}`);
    // Every shell started before the window: the figure is calls, not starts.
    for (let i = 0; i < AGENTS; i += 10) {
      await Promise.all(agents.slice(i, i + 10).map((agent) => firstCall(server, agent)));
    }
    const caller = lightCaller(server, AGENTS);
    let answered = 0;
    let perSecond = 0;
    let serverCpu = 0;
    try {
      // Warm first (see WARM_CALLS), then the window.
      for (let i = 0; i < WARM_CALLS; i += AGENTS) {
        await Promise.all(agents.map((agent) => caller.call(agent, 'true')));
      }
      const cpuBefore = cpuMs(server.child.pid as number);
      const until = performance.now() + THROUGHPUT_WINDOW_MS;
      const start = performance.now();
      await Promise.all(
        agents.map(async (agent) => {
          while (performance.now() < until) {
            await caller.call(agent, 'true');
            answered++;
          }
        }),
      );
      perSecond = answered / ((performance.now() - start) / 1000);
      serverCpu = (cpuMs(server.child.pid as number) - cpuBefore) / answered;
    } finally {
      caller.close();
    }
    return [
      report(
        `calls per second with ${AGENTS} agents, sandboxed (target / measured)`,
        THROUGHPUT_TARGET_PER_S / perSecond,
        1,
        `(${perSecond.toFixed(0)} calls/s against ${THROUGHPUT_TARGET_PER_S}; the server's CPU ` +
          `${serverCpu.toFixed(3)} ms per call meanwhile)`,
      ),
    ];
  } finally {
    await stopServer(server);
  }
}
