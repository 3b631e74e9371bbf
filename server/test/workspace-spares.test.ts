/**
 * Spare workspace file systems (`--workspace-quota` as root): a server keeps two ext4 images
 * loop-mounted ahead of need, and a new agent's workspace is one of them, moved into place,
 * with the owner, mode, mount options and quota a workspace made the slow way has. A
 * replacement is made after. Spares nobody took are unmounted and removed when the server
 * stops and when it is killed with SIGKILL (and then its workspaces are unmounted too), and a
 * killed run's leftovers are swept at the next start on its data dir. Spares are mounted outside the workspace root (SPARE_MOUNT_DIR),
 * so a root removed while a killed server's keeper still cleans never meets a mount. A sandbox
 * holds no other workspace's file system, nor a spare (foreign-mounts.ts).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKeyOf } from '../src/launch/choose-launcher.ts';
import { mounts, mountsUnder } from '../src/launch/mount-table.ts';
import { SPARE_MOUNT_DIR } from '../src/launch/quota-keeper.ts';
import { WorkspaceQuota } from '../src/launch/workspace-quota.ts';
import { childrenOf, readProgramNow, readStatNow, startTimeOf } from '../src/pty/proc-probe.ts';
import { cleanEnv, type Serving, serve } from './support/cli-process.ts';

const QUOTA = '20MiB';
const QUOTA_BYTES = 20 * 1024 * 1024;
const ADMIN = 'js_spares_admin_token';
/** Two server starts from source and a dozen mounts, on a busy machine. */
const TEST_TIMEOUT_MS = 180_000;
const POLL = { timeout: 30_000, interval: 100 };
const IS_ROOT = process.getuid?.() === 0;
const CI = process.env.CI === 'true' || process.env.CI === '1';

let scratch: string;
let dataDir: string;
let root: string;
let quotaDir: string;
const running: Serving[] = [];

/** Whether the quota can be held here; says why not, and fails under CI as root. */
function quotaApplies(): boolean {
  const quota = WorkspaceQuota.detect({
    bytes: QUOTA_BYTES,
    root,
    shared: false,
    runKey: 'spares-check',
  });
  if (IS_ROOT && !('why' in quota)) return true;
  process.stdout.write(`workspace spares: NOT RUN — ${'why' in quota ? quota.why : 'not root'}\n`);
  expect(IS_ROOT && CI).toBe(false);
  return false;
}

async function start(): Promise<Serving> {
  const serving = await serve(
    ['--data-dir', dataDir, '--workspace', root, '--workspace-quota', QUOTA, '--network', 'off'],
    cleanEnv({ JUMPSEAT_TOKEN: ADMIN }),
    // From source, on a machine that may be busy: a start can take a while.
    { fromSource: true, startDeadlineMs: 60_000 },
  );
  running.push(serving);
  return serving;
}

async function call(serving: Serving, agent: string, command: string): Promise<string> {
  const response = await fetch(`${serving.origin}/api/agents/${agent}/bash`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command }),
  });
  const body = (await response.json()) as { output?: string };
  if (response.status !== 200) throw new Error(`${response.status}: ${JSON.stringify(body)}`);
  return body.output ?? '';
}

/** How the spares of the run key, or of one server's pid (`<pid>.<start>`), are named. */
function sparePrefix(pid?: number): string {
  return `.spare-${runKeyOf(dataDir)}-${pid === undefined ? '' : `${pid}.`}`;
}

/** The spare images (and their mount dirs) of the run key, or of one server's pid. */
function spareFiles(pid?: number): string[] {
  return readdirSync(quotaDir).filter((name) => name.startsWith(sparePrefix(pid)));
}

function spareMounts(pid?: number): string[] {
  return mountsUnder(join(SPARE_MOUNT_DIR, sparePrefix(pid)));
}

/**
 * A killed run's spare named `name`, mounted, as its keeper would have left it had it died too:
 * its image and its mount dir.
 */
function leaveSpare(name: string): string[] {
  const image = join(quotaDir, name);
  const mount = join(SPARE_MOUNT_DIR, `${name}.d`);
  execFileSync('truncate', ['-s', '8M', image]);
  execFileSync('mkfs.ext4', ['-q', '-F', image]);
  mkdirSync(mount);
  execFileSync('mount', ['-o', 'loop', image, mount]);
  return [image, mount];
}

/** The loop devices (MAJ:MIN) attached to a workspace's image. */
function loopDevices(agent: string): string[] {
  return execFileSync('losetup', ['-n', '-O', 'MAJ:MIN', '-j', join(quotaDir, `${agent}.ext4`)])
    .toString()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** A pid no process has now: one of a process that has just ended. */
function deadPid(): number {
  const ended = spawnSync('true');
  if (ended.pid === undefined) throw new Error('true did not start');
  return ended.pid;
}

describe('spare workspace file systems', () => {
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'jumpseat-spares-'));
    dataDir = join(scratch, 'data');
    root = join(scratch, 'workspaces');
    quotaDir = join(root, '.quota');
    mkdirSync(root, { recursive: true });
  });

  afterAll(async () => {
    for (const serving of running) {
      if (serving.process.exitCode === null && serving.process.signalCode === null) {
        serving.process.kill('SIGKILL');
        await serving.exited;
      }
    }
    // Nothing may be left mounted under the scratch dir before it goes.
    const prefix = join(SPARE_MOUNT_DIR, `.spare-${runKeyOf(dataDir)}-`);
    for (const point of [...mountsUnder(scratch), ...mountsUnder(prefix)].reverse()) {
      spawnSync('umount', ['-l', point]);
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  it(
    'gives a new agent a spare as its workspace, and none is left after a kill or a stop',
    async () => {
      if (!quotaApplies()) return;
      mkdirSync(quotaDir, { recursive: true, mode: 0o700 });
      mkdirSync(SPARE_MOUNT_DIR, { recursive: true, mode: 0o700 });
      // Killed runs' spares: one named by an older run (its pid alone, now free), and one whose
      // pid another process has been given since (its start time differs).
      const other = spawn('sleep', ['60'], { stdio: 'ignore' });
      await new Promise((resolve) => other.once('spawn', resolve));
      const otherStart = Number(startTimeOf(other.pid ?? 0));
      const key = runKeyOf(dataDir);
      const leftovers = [
        leaveSpare(`.spare-${key}-${deadPid()}-1.ext4`),
        leaveSpare(`.spare-${key}-${other.pid}.${otherStart + 1}-1.ext4`),
      ].flat();

      const first = await start();
      const pid = first.process.pid ?? 0;
      // The leftovers are swept, and two spares of this server are made.
      await expect.poll(() => leftovers.filter((path) => existsSync(path)), POLL).toEqual([]);
      other.kill('SIGKILL');
      await expect.poll(() => spareMounts(pid).length, POLL).toBe(2);
      expect(spareMounts().length).toBe(2);
      const before = spareMounts(pid);
      const spareDevices = before.map((point) => mounts().find((m) => m.point === point)?.device);

      // A new, empty workspace: one of the spares.
      expect(await call(first, 'newcomer', 'ls -A | wc -l')).toBe('0');
      const workspace = join(root, 'newcomer');
      const mounted = mounts().find((m) => m.point === workspace);
      expect(mounted?.type).toBe('ext4');
      expect(spareDevices).toContain(mounted?.device);
      expect(mounted?.options).toEqual(expect.arrayContaining(['nosuid', 'nodev']));
      expect(existsSync(join(quotaDir, 'newcomer.ext4'))).toBe(true);
      // Its own room: the quota's size, and full at it.
      expect(await call(first, 'newcomer', 'head -c 30M /dev/zero > fill')).toBe(
        "head: error writing 'standard output': No space left on device\n[exit code: 1]",
      );
      const size = Number(await call(first, 'newcomer', 'df -B1 --output=size . | tail -n 1'));
      expect(size).toBeLessThanOrEqual(QUOTA_BYTES);
      expect(size).toBeGreaterThan(QUOTA_BYTES / 2);
      expect(await call(first, 'newcomer', 'rm fill && echo kept > kept && cat kept')).toBe('kept');

      // The same owner and mode as a workspace whose file system was made the slow way (it
      // held a file, so it got no spare), made with the mode the server gives a workspace.
      const slow = join(root, 'slow');
      mkdirSync(slow, { mode: statSync(workspace).mode & 0o777 });
      execFileSync('touch', [join(slow, 'held')]);
      expect(await call(first, 'slow', 'ls')).toBe('held');
      const [taken, made] = [statSync(workspace), statSync(slow)];
      expect([taken.uid, taken.gid, taken.mode]).toEqual([made.uid, made.gid, made.mode]);
      expect(mounts().find((m) => m.point === slow)?.type).toBe('ext4');

      // A replacement is made: two spares again, one of them new.
      await expect.poll(() => spareMounts(pid).length, POLL).toBe(2);
      expect(spareMounts(pid).filter((point) => !before.includes(point)).length).toBe(1);

      // Killed with SIGKILL: the keeper removes the spares nobody took, and unmounts the
      // workspaces (a server killed and never started again leaves no mounts).
      first.process.kill('SIGKILL');
      await first.exited;
      await expect.poll(() => spareMounts().length + spareFiles().length, POLL).toBe(0);
      await expect.poll(() => mountsUnder(`${root}/`), POLL).toEqual([]);

      // The next start finds the workspace as it was; a stop leaves nothing mounted.
      const second = await start();
      expect(await call(second, 'newcomer', 'cat kept')).toBe('kept');
      await expect.poll(() => spareMounts(second.process.pid).length, POLL).toBe(2);
      second.process.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      expect(mountsUnder(`${root}/`)).toEqual([]);
      expect(spareMounts()).toEqual([]);
      expect(spareFiles()).toEqual([]);
      expect(readdirSync(SPARE_MOUNT_DIR).filter((n) => n.includes(runKeyOf(dataDir)))).toEqual([]);
      expect(existsSync(join(quotaDir, 'newcomer.ext4'))).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'leaves no workspace mounted when a stop is cut short once its keeper was told to stop',
    async () => {
      if (!quotaApplies()) return;
      // A stop past its grace (10 s; a host with 500 shells took longer) ends the process
      // wherever it is. Told to stop before the server's own unmounts, the keeper left every
      // workspace mounted; told after them, it is unstopped until they are done.
      const serving = await start();
      const pid = serving.process.pid ?? 0;
      expect(await call(serving, 'cut-short', 'echo kept > kept && cat kept')).toBe('kept');
      expect(mounts().find((m) => m.point === join(root, 'cut-short'))?.type).toBe('ext4');
      const keeper = childrenOf(pid).find((child) =>
        readProgramNow(child)?.words.includes('jumpseat-spares'),
      );
      expect(keeper).toBeDefined();
      const ended = (child: number): boolean => {
        const state = readStatNow(child)?.state;
        return state === undefined || state === 'Z';
      };
      serving.process.kill('SIGTERM');
      // Killed the moment the keeper has ended (its stop told), as a grace running out would.
      while (!ended(keeper ?? 0) && serving.process.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      serving.process.kill('SIGKILL');
      await serving.exited;
      await expect.poll(() => mountsUnder(`${root}/`), POLL).toEqual([]);
      await expect.poll(() => spareMounts().length + spareFiles().length, POLL).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "shows a sandbox no other workspace's file system, and mounts again one a process still holds",
    async () => {
      if (!quotaApplies()) return;
      // Two servers on one workspace root (two data dirs). bwrap binds / with everything below
      // it: each sandbox had a copy of every workspace mounted when it started (hidden under
      // the root's tmpfs, named in its mount table), which kept that file system and its loop
      // device alive after the owning server unmounted it.
      const first = await start();
      expect(await call(first, 'pinned', 'echo kept > kept; cat kept')).toBe('kept');
      const other = await serve(
        [
          ...['--data-dir', join(scratch, 'other-data'), '--workspace', root],
          ...['--workspace-quota', QUOTA, '--network', 'off'],
        ],
        cleanEnv({ JUMPSEAT_TOKEN: ADMIN }),
        { fromSource: true, startDeadlineMs: 60_000 },
      );
      running.push(other);
      const table = await call(other, 'holder', 'cat /proc/self/mountinfo');
      expect(table).toContain(`${join(root, 'holder')} `);
      expect(table).not.toContain(join(root, 'pinned'));
      expect(table).not.toContain(SPARE_MOUNT_DIR);
      const ownTable = await call(first, 'pinned', 'cat /proc/self/mountinfo');
      expect(ownTable).not.toContain(join(root, 'holder'));

      // A process of the first run left in the workspace (on the host, out of any sandbox)
      // holds its file system past the stop: the next start mounts that loop device again
      // (never a second one on the image), where it waited 8 s and refused the shell.
      const lingering = spawn('sleep', ['600'], { cwd: join(root, 'pinned'), stdio: 'ignore' });
      try {
        first.process.kill('SIGTERM');
        expect(await first.exited).toBe(0);
        expect(mountsUnder(`${root}/pinned`)).toEqual([]);
        expect(loopDevices('pinned')).toHaveLength(1);

        const again = await start();
        expect(await call(again, 'pinned', 'cat kept; echo more >> kept')).toBe('kept');
        const device = mounts().find((m) => m.point === join(root, 'pinned'))?.device;
        // (mount-table devices are major:minor, as losetup's MAJ:MIN column)
        expect(device).toMatch(/^\d+:\d+$/);
        expect(loopDevices('pinned')).toEqual([device]);
        lingering.kill('SIGKILL');
        again.process.kill('SIGTERM');
        expect(await again.exited).toBe(0);
      } finally {
        lingering.kill('SIGKILL');
      }
      // Unmounted and unused: the file system goes, though the other server's sandbox,
      // started while it was mounted, still runs.
      await expect.poll(() => loopDevices('pinned'), POLL).toEqual([]);
      expect(await call(other, 'holder', 'echo still up')).toBe('still up');
      other.process.kill('SIGTERM');
      expect(await other.exited).toBe(0);
      expect(mountsUnder(`${root}/`)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "shows a server's sandboxes without a quota of their own no other server's workspace or spare",
    async () => {
      if (!quotaApplies()) return;
      // A shared workspace has no quota: its sandboxes copied the host's mounts as they were,
      // other servers' workspaces and spares among them, and one of those going away while
      // bwrap remounted its copies refused the shell (503 in the browser suite).
      const quota = await start();
      expect(await call(quota, 'mounted', 'echo here')).toBe('here');
      await expect.poll(() => spareMounts().length, POLL).toBeGreaterThan(0);
      const sharedDir = join(scratch, 'shared');
      mkdirSync(sharedDir);
      const shared = await serve(
        [
          ...['--data-dir', join(scratch, 'shared-data'), '--workspace', sharedDir],
          ...['--shared-workspace', '--network', 'off'],
        ],
        cleanEnv({ JUMPSEAT_TOKEN: ADMIN }),
        { fromSource: true, startDeadlineMs: 60_000 },
      );
      running.push(shared);
      const table = await call(shared, 'beside', 'cat /proc/self/mountinfo');
      expect(table).toContain(` ${sharedDir} `);
      expect(table).not.toContain(join(root, 'mounted'));
      expect(table).not.toContain(SPARE_MOUNT_DIR);
      expect(await call(shared, 'beside', 'echo ok > here; cat here')).toBe('ok');
      for (const serving of [shared, quota]) {
        serving.process.kill('SIGTERM');
        expect(await serving.exited).toBe(0);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
