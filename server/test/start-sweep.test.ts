/**
 * The start-up sweep ends only what this server's own data dir left: two servers on two data
 * dirs each leave a daemon; one is killed with SIGKILL; a third server on a third data dir
 * sweeps nothing of it (no banner line, its daemon and cgroups stay); a restart on the dead
 * one's data dir sweeps exactly its leftovers and says how many, and the live neighbour's
 * daemon and cgroups are never touched.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cgroupsOf } from './support/cgroup-dirs.ts';
import { cleanEnv, type Serving, serve } from './support/cli-process.ts';
import { processesRunning } from './support/host-processes.ts';

/** The daemons' `sleep` arguments tell whose each is. */
const DAEMON_OF = { dead: '4271', live: '4272' } as const;
/** Four server starts from source, each a few seconds on a busy machine. */
const TEST_TIMEOUT_MS = 180_000;
const SWEPT_LINE = /^ended (\d+) processes an earlier run's shells left running$/m;
/** Waits for a banner line, a daemon's start or its end: seconds on a CI box running suites
 *  side by side (vitest's default of one second failed there). */
const POLL = { timeout: 20_000, interval: 50 };

let scratch: string;
const running: Serving[] = [];

const dataDirOf = (name: string) => join(scratch, name);
/** One workspace root for all, apart from the data dirs (agents are named like the servers). */
const workspaces = () => join(scratch, 'workspaces');

async function start(name: string): Promise<Serving> {
  const serving = await serve(
    ['--data-dir', dataDirOf(name), '--workspace', workspaces(), '--sandbox', 'off'],
    cleanEnv({ JUMPSEAT_TOKEN: `js_sweep_${name}` }),
    { fromSource: true },
  );
  running.push(serving);
  return serving;
}

async function leaveDaemon(serving: Serving, name: string, sleep: string): Promise<void> {
  const response = await fetch(`${serving.origin}/api/agents/${name}/bash`, {
    method: 'POST',
    headers: { authorization: `Bearer js_sweep_${name}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command: `setsid -f sleep ${sleep}; true` }),
  });
  expect(response.status).toBe(200);
  await expect.poll(() => processesRunning('sleep', sleep).length, POLL).toBe(1);
}

async function stop(serving: Serving): Promise<void> {
  if (serving.process.exitCode === null && serving.process.signalCode === null) {
    serving.process.kill('SIGTERM');
  }
  await serving.exited;
}

describe('the start-up sweep: only a server’s own leftovers, found by its data dir', () => {
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'jumpseat-sweep-'));
    mkdirSync(workspaces());
  });

  afterAll(async () => {
    for (const serving of running) await stop(serving);
    for (const sleep of Object.values(DAEMON_OF)) {
      for (const pid of processesRunning('sleep', sleep)) process.kill(pid, 'SIGKILL');
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  it(
    'a neighbour sweeps nothing of a killed server; its own restart sweeps exactly that',
    async () => {
      const dead = await start('dead');
      const live = await start('live');
      await leaveDaemon(dead, 'dead', DAEMON_OF.dead);
      await leaveDaemon(live, 'live', DAEMON_OF.live);
      const deadGroups = cgroupsOf(dataDirOf('dead'));
      const liveGroups = cgroupsOf(dataDirOf('live'));
      dead.process.kill('SIGKILL');
      await dead.exited;
      // The daemon left its session: the killed server's shell could not take it along.
      expect(processesRunning('sleep', DAEMON_OF.dead)).toHaveLength(1);

      const stranger = await start('stranger');
      await expect.poll(() => stranger.stdout(), POLL).toMatch(/^workspace quota/m);
      expect(stranger.stdout()).not.toMatch(SWEPT_LINE);
      expect(processesRunning('sleep', DAEMON_OF.dead)).toHaveLength(1);
      expect(cgroupsOf(dataDirOf('dead'))).toEqual(deadGroups);

      const restarted = await start('dead');
      await expect.poll(() => restarted.stdout(), POLL).toMatch(SWEPT_LINE);
      // The daemon, the only process the killed run left, and nothing of the neighbour's.
      expect(SWEPT_LINE.exec(restarted.stdout())?.[1]).toBe('1');
      await expect.poll(() => processesRunning('sleep', DAEMON_OF.dead).length, POLL).toBe(0);
      expect(cgroupsOf(dataDirOf('dead')).filter((dir) => deadGroups.includes(dir))).toEqual([]);
      expect(processesRunning('sleep', DAEMON_OF.live)).toHaveLength(1);
      expect(cgroupsOf(dataDirOf('live'))).toEqual(liveGroups);
    },
    TEST_TIMEOUT_MS,
  );
});
