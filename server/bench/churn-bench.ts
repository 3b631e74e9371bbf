/**
 * What an ended shell keeps (issue 15): the engine in this process, shells that print 2,000
 * lines (a full scrollback) measured live and then ended, with the garbage collector run
 * before each reading. The figure is the memory an ended shell retains against a live one's;
 * before the screen model was let go at exit the two were the same (about 3.6 MB each).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadConfig } from '../src/config/config.ts';
import { FREEZE_QUIET_MS } from '../src/session/shell-display.ts';
import { createToolService } from '../src/tool/create-tool-service.ts';
import { report, sleep } from './bench-server.ts';

const SHELLS = 20;
/** An ended shell should keep at most a quarter of what a live one holds. */
const RETAINED_RATIO_TARGET = 0.25;
/** Lets the ended shells' last snapshots be taken (after their quiet time) before the reading. */
const SETTLE_MS = FREEZE_QUIET_MS + 500;
const MIB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

function retained(): number {
  collect();
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

export async function churnBenchmarks(): Promise<boolean[]> {
  const root = mkdtempSync(join(tmpdir(), 'jumpseat-churn-'));
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  const config = loadConfig(
    ['--data-dir', join(root, 'data'), '--workspace', workspace, '--sandbox', 'off'],
    {},
  );
  const tools = createToolService(config);
  const signal = new AbortController().signal;
  try {
    await tools.call('churn-warm', 'bash', 'true', signal);
    const before = retained();
    for (let i = 0; i < SHELLS; i++) await tools.call(`churn-${i}`, 'bash', 'seq 1 2000', signal);
    await sleep(SETTLE_MS);
    const live = (retained() - before) / SHELLS;
    for (let i = 0; i < SHELLS; i++) await tools.call(`churn-${i}`, 'bash', 'exit 0', signal);
    await sleep(SETTLE_MS);
    const ended = (retained() - before) / SHELLS;
    return [
      report(
        `memory an ended shell keeps against a live one (${SHELLS} shells of 2,000 lines)`,
        ended / live,
        RETAINED_RATIO_TARGET,
        `(${(ended / MIB).toFixed(2)} MiB per ended shell, ${(live / MIB).toFixed(2)} MiB per live shell)`,
      ),
    ];
  } finally {
    await tools.close();
    rmSync(root, { recursive: true, force: true });
  }
}

// `node --import tsx server/bench/churn-bench.ts` runs this figure alone.
if (import.meta.url === `file://${process.argv[1]}`) await churnBenchmarks();
