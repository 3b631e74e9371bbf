/**
 * The soak and fault suite (`npm run soak`; CI runs SHORT as a test): against a real server
 * on loopback it runs load (concurrent calls), churn (shells opened and ended), a viewer flood
 * (live sockets that never read), an audit flood (unauthenticated requests) and disk faults
 * (a small tmpfs filled to ENOSPC, when this host lets us mount one), and gives the figures:
 * RSS along the way, audit rows, bytes on disk against the caps, calls lost. Every loop is
 * bounded by the size given.
 */

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent, CallInfo, SessionInfo } from '../../shared/src/api.ts';
import type { SoakFigures } from './soak-figures.ts';
import {
  getJson,
  inParallel,
  request,
  rssMiB,
  type SoakServer,
  startSoakServer,
  stopSoakServer,
  toolCall,
} from './soak-server.ts';

export interface SoakSize {
  readonly loadAgents: number;
  readonly loadCallsPerAgent: number;
  readonly churnShells: number;
  readonly viewers: number;
  readonly auditRequests: number;
  readonly faultCalls: number;
}

export const FULL_SOAK: SoakSize = {
  loadAgents: 20,
  loadCallsPerAgent: 25,
  churnShells: 150,
  viewers: 300,
  auditRequests: 20_000,
  faultCalls: 20,
};

export const SHORT_SOAK: SoakSize = {
  loadAgents: 4,
  loadCallsPerAgent: 5,
  churnShells: 12,
  viewers: 30,
  auditRequests: 600,
  faultCalls: 3,
};

/** The caps the soak server runs with, and that its figures are held against. */
export const SOAK_CAPS = {
  recordingTotal: 16 * 1024 * 1024,
  recordingFile: 2 * 1024 * 1024,
  spillAgent: 1024 * 1024,
  spillTotal: 4 * 1024 * 1024,
  auditRows: 1000,
  maxOutputChars: 2000,
} as const;

/** The tmpfs the data dir lives on when faults run: room for every cap, and some. */
const DISK_BYTES = 256 * 1024 * 1024;
const LOAD_CONCURRENCY = 16;
const AUDIT_CONCURRENCY = 50;
const CHURN_CONCURRENCY = 4;
/** Output of the shell the viewers watch: about 1.9 MB they never read. */
const VIEWER_FLOOD_COMMAND = 'seq 1 300000';
const POLL_MS = 100;
/** A hang guard for the phases that wait on the server, not a timing assertion. */
const WAIT_LIMIT_MS = 30_000;

function dirBytes(dir: string): number {
  let total = 0;
  try {
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      const stat = statSync(join(dir, name), { throwIfNoEntry: false });
      if (stat?.isFile()) total += stat.size;
    }
  } catch {
    // Not made yet.
  }
  return total;
}

function canMount(): string | null {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  return null;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`soak: gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A WebSocket upgrade by hand, then never a byte read: the kernel buffers fill. */
function stalledViewer(server: SoakServer, sessionId: string): Promise<() => void> {
  const { hostname, port, origin } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        [
          `GET /api/sessions/${sessionId}/live HTTP/1.1`,
          `Host: ${hostname}:${port}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
          'Sec-WebSocket-Version: 13',
          `Origin: ${origin}`,
          `Authorization: Bearer ${server.token}`,
          '',
          '',
        ].join('\r\n'),
      );
      socket.pause();
      resolve(() => socket.destroy());
    });
    socket.on('error', reject);
  });
}

export async function runSoak(size: SoakSize, log: (line: string) => void): Promise<SoakFigures> {
  const root = mkdtempSync(join(tmpdir(), 'jumpseat-soak-'));
  const dataDir = join(root, 'data');
  const workspace = join(root, 'workspace');
  mkdirSync(dataDir);
  mkdirSync(workspace);
  const noMount = canMount();
  let mounted = false;
  if (noMount === null) {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_BYTES},mode=700`, 'tmpfs', dataDir]);
      mounted = true;
    } catch (error) {
      log(`soak: no tmpfs (${(error as Error).message.split('\n')[0]}); disk faults not run`);
    }
  }
  const server = await startSoakServer(dataDir, workspace, [
    '--max-output-chars',
    String(SOAK_CAPS.maxOutputChars),
    '--recording-max-total-bytes',
    String(SOAK_CAPS.recordingTotal),
    '--recording-max-file-bytes',
    String(SOAK_CAPS.recordingFile),
    '--spill-max-agent-bytes',
    String(SOAK_CAPS.spillAgent),
    '--spill-max-total-bytes',
    String(SOAK_CAPS.spillTotal),
    '--audit-max-rows',
    String(SOAK_CAPS.auditRows),
  ]);
  const rss: Record<string, number> = {};
  let made = 0;
  let answered = 0;
  const expect = async (agent: string, command: string, wanted: (output: string) => boolean) => {
    made += 1;
    const result = await toolCall(server, agent, command).catch(() => ({ status: 0, output: '' }));
    if (result.status === 200 && wanted(result.output)) answered += 1;
  };
  try {
    await expect('soak-warm', 'echo warm', (o) => o === 'warm');
    rss.start = rssMiB(server);

    // Load: concurrent agents, each a series of calls; every third prints past the clip.
    log(`soak: load (${size.loadAgents} agents x ${size.loadCallsPerAgent} calls)`);
    await inParallel(size.loadAgents * size.loadCallsPerAgent, LOAD_CONCURRENCY, async (i) => {
      const agent = `soak-load-${i % size.loadAgents}`;
      if (i % 3 === 0)
        await expect(agent, 'seq 1 20000', (o) => o.includes('[full output saved to'));
      else await expect(agent, `echo load-${i}`, (o) => o === `load-${i}`);
    });
    rss.afterLoad = rssMiB(server);

    // Churn: shells that print a screenful of history and end, in two halves: the second
    // half's growth is what ended shells keep once the allocator has warmed up.
    log(`soak: churn (${size.churnShells} shells)`);
    const half = Math.ceil(size.churnShells / 2);
    const churn = (from: number, to: number): Promise<void> =>
      inParallel(to - from, CHURN_CONCURRENCY, async (i) => {
        await expect(`soak-churn-${from + i}`, 'seq 1 2000; exit 0', (o) =>
          o.includes('[shell exited: code 0]'),
        );
      });
    await churn(0, half);
    rss.afterHalfChurn = rssMiB(server);
    await churn(half, size.churnShells);
    rss.afterChurn = rssMiB(server);
    const perEndedShellMiB =
      (rss.afterChurn - rss.afterHalfChurn) / Math.max(1, size.churnShells - half);

    // Viewer flood: sockets on one shell that never read, while it prints.
    log(`soak: viewer flood (${size.viewers} stalled sockets)`);
    await expect('soak-watched', 'echo watched', (o) => o === 'watched');
    const sessions = await getJson<SessionInfo[]>(server, '/api/sessions');
    const watched = sessions.find((s) => s.agent === 'soak-watched' && s.state !== 'exited');
    const beforeViewers = rssMiB(server);
    const closers: (() => void)[] = [];
    await inParallel(size.viewers, AUDIT_CONCURRENCY, async () => {
      closers.push(await stalledViewer(server, watched?.id ?? ''));
    });
    await expect('soak-watched', VIEWER_FLOOD_COMMAND, (o) => o.startsWith('1\n2\n3\n'));
    rss.withViewers = rssMiB(server);
    for (const close of closers) close();
    const viewerGrowth = rss.withViewers - beforeViewers;

    // Audit flood: unauthenticated and bad-token requests.
    log(`soak: audit flood (${size.auditRequests} refused requests)`);
    await inParallel(size.auditRequests, AUDIT_CONCURRENCY, async (i) => {
      const response = await request(server, i % 2 ? '/api/sessions' : '/api/tools', {
        token: i % 3 === 0 ? 'js_not-a-token' : null,
      });
      await response.arrayBuffer();
    });
    const refusedRows = await getJson<AuditEvent[]>(server, '/api/audit?kind=refused&limit=10000');
    const allRows = await getJson<AuditEvent[]>(server, '/api/audit?limit=10000');
    rss.afterAudit = rssMiB(server);

    // Disk faults: the data dir fills up; calls go on; space returns; nothing is lost.
    let faults: SoakFigures['faults'] = { notRun: noMount ?? 'no tmpfs could be mounted' };
    if (mounted) {
      log(`soak: disk full (${size.faultCalls} calls)`);
      // The shell is started first: a new shell on a full disk takes a slice of the data
      // dir's reserve (session/space-reserve.ts), whose rest would let other writes land.
      await expect('soak-fault', 'echo warm', (o) => o === 'warm');
      const filler = join(dataDir, 'soak-filler');
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M'], { stdio: 'ignore' });
      } catch {
        // dd stops at ENOSPC: the disk is full, as wanted.
      }
      const before = answered;
      for (let i = 0; i < size.faultCalls; i++) {
        await expect('soak-fault', `echo fault-${i}`, (o) => o === `fault-${i}`);
      }
      const faultAnswered = answered - before;
      let degradedSeen = false;
      await until(async () => {
        const health = await getJson<{ storage: string }>(server, '/healthz');
        degradedSeen = health.storage === 'degraded';
        return degradedSeen;
      }, 'a degraded /healthz').catch(() => undefined);
      rmSync(filler, { force: true });
      let recovered = false;
      await until(async () => {
        const health = await getJson<{ storage: string }>(server, '/healthz');
        recovered = health.storage === 'ok';
        return recovered;
      }, 'a healthy /healthz').catch(() => undefined);
      const warnings = server.stderr.filter((l) => l.startsWith('jumpseat: warning:')).length;
      faults = {
        calls: size.faultCalls,
        answered: faultAnswered,
        degradedSeen,
        recovered,
        warnings,
      };
    }

    // Every call on record: the history of every shell, live and ended.
    const all = await getJson<SessionInfo[]>(server, '/api/sessions?state=all');
    let onRecord = 0;
    for (const session of all) {
      const calls = await getJson<CallInfo[]>(server, `/api/sessions/${session.id}/calls`);
      onRecord += calls.length;
    }
    rss.end = rssMiB(server);
    const outputs = join(dataDir, 'outputs');
    const agentBytes = (() => {
      try {
        return readdirSync(outputs).map((agent) => dirBytes(join(outputs, agent)));
      } catch {
        return [0];
      }
    })();
    return {
      rssMiB: rss,
      calls: { made, answered, lost: made - answered, onRecord },
      churn: { shells: size.churnShells, perEndedShellMiB },
      viewers: { sockets: size.viewers, rssGrowthMiB: viewerGrowth },
      audit: {
        refusedSent: size.auditRequests,
        refusedRows: refusedRows.length,
        refusedCounted: refusedRows.reduce((sum, row) => sum + row.count, 0),
        rows: allRows.length,
        cap: SOAK_CAPS.auditRows,
      },
      disk: {
        recordingsBytes: dirBytes(join(dataDir, 'recordings')),
        recordingsCap: SOAK_CAPS.recordingTotal,
        savedOutputsBytes: dirBytes(outputs),
        savedOutputsCap: SOAK_CAPS.spillTotal,
        largestAgentOutputsBytes: Math.max(0, ...agentBytes),
        agentOutputsCap: SOAK_CAPS.spillAgent,
      },
      faults,
    };
  } finally {
    await stopSoakServer(server);
    if (mounted) {
      try {
        execFileSync('umount', [dataDir], { stdio: 'ignore' });
      } catch {
        execFileSync('umount', ['-l', dataDir], { stdio: 'ignore' });
      }
    }
    rmSync(root, { recursive: true, force: true });
  }
}
