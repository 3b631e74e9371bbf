/**
 * Per-shell cgroups, where the host lets this server create them (as root, or where a
 * cgroup is delegated to its user): a `pids` limit that a fork bomb cannot pass, a memory
 * limit for the shell's whole tree (tmpfs pages it writes included, no swap), a CPU weight (and
 * an optional cap) so one shell's busy loop cannot starve the others, and a membership list
 * that `setsid` or a double fork cannot leave, so a reset ends every process the shell started.
 * Both cgroup v1 (one hierarchy per controller) and v2 (one unified hierarchy) are handled.
 */
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { runAlive, runOf } from './server-run.ts';

/**
 * Our cgroups are named `jumpseat-<run key>-<server pid>.<its start time>-<random>`. The run
 * key is a hash of the data dir, so a server sweeps only what an earlier run on its own data
 * dir left (never a live or dead neighbour's on another data dir); the pid with its start time
 * tells a live run's from a dead one's. The pid alone did not: with 32,768 pids a busy host
 * gives a dead server's pid to another process within seconds, and its groups then looked
 * alive and stayed (CI beside two CPU hogs). Names without the start time (older runs) are
 * told by the pid alone.
 */
const GROUP_PREFIX = 'jumpseat-';
const GROUP_NAME = /^jumpseat-([0-9a-f]+)-(\d+)(?:\.(\d+))?-[0-9a-f]+$/;
/** This server, as its groups name it: its pid, and when it started where that is known. */
const OWN_RUN = runOf(process.pid);

type Controller = 'pids' | 'memory' | 'cpu';
const CONTROLLERS: readonly Controller[] = ['pids', 'memory', 'cpu'];

/** cgroup v2's default `cpu.weight` and v1's default `cpu.shares`: the same share of a CPU. */
export const DEFAULT_CPU_WEIGHT = 100;
const V1_SHARES_PER_WEIGHT = 1024 / DEFAULT_CPU_WEIGHT;
/** v2 accepts `cpu.weight` from 1 to 10000. */
const V2_MIN_WEIGHT = 1;
/** v1 accepts `cpu.shares` from 2 to 262144. */
const V1_MIN_SHARES = 2;
const V1_MAX_SHARES = 262_144;
/** The CFS period a CPU cap is expressed in (the kernel's default, 100 ms), in microseconds. */
const CPU_PERIOD_US = 100_000;
/** How often a stop looks again for groups whose killed members have left… */
const LINGER_POLL_MS = 50;
/** …and for how long at most (killed processes leave within milliseconds on a quiet host). */
const LINGER_LIMIT_MS = 1000;

interface Hierarchy {
  /** The cgroup directory this server runs in, in that hierarchy. */
  readonly base: string;
  readonly version: 1 | 2;
}

export interface CgroupLimits {
  readonly maxProcesses: number;
  /** Undefined: no memory limit. */
  readonly maxMemoryBytes: number | undefined;
  /** Relative CPU share, 1-10000 (v2 `cpu.weight`; v1 `cpu.shares` scaled from it). */
  readonly cpuWeight: number;
  /** CPUs' worth of time the shell may use at most (e.g. 1.5); undefined: no cap. */
  readonly cpuMax: number | undefined;
}

/** One shell's cgroups (one directory per hierarchy involved). */
export interface ShellCgroup {
  /** The `cgroup.procs` files the shell's first process writes its pid into. */
  readonly procFiles: readonly string[];
  members(): Set<number>;
  /** Removes the directories (they must be empty of processes by then). */
  remove(): void;
  /**
   * Gives the shell the least CPU share there is (at a stop, before its tree is killed): a
   * thousand dying sandboxes, each a share equal to the server's, left the server a
   * thousandth of the CPU to end the rest with. Cgroups.restoreYielded gives it back.
   */
  yieldCpu(): void;
}

export class Cgroups {
  /** Groups that yielded the CPU (yieldCpu) and are not removed yet: how to give it back. */
  private readonly yielded = new Map<string, () => void>();
  /** Directories a removal found still holding processes (a stop kills without watching). */
  private readonly lingering = new Set<string>();

  private constructor(
    private readonly hierarchies: ReadonlyMap<Controller, Hierarchy>,
    private readonly runKey: string,
  ) {}

  /**
   * Gives every group that yielded the CPU its share back: once the stop has signalled every
   * shell, what is still dying must not crawl at the least share after the server is gone.
   */
  restoreYielded(): void {
    for (const restore of this.yielded.values()) restore();
    this.yielded.clear();
  }

  /**
   * Removes the groups that still held processes when their shell was released, as those
   * processes leave, for `limitMs` at most; says how many are left (the next start on this
   * data dir sweeps them). At a stop the shells are killed without being watched, so without
   * this every group of the run stayed behind until a restart.
   */
  async removeLingering(limitMs = LINGER_LIMIT_MS): Promise<number> {
    const until = Date.now() + limitMs;
    for (;;) {
      for (const dir of this.lingering) {
        removeQuietly(dir);
        if (!existsSync(dir)) this.lingering.delete(dir);
      }
      if (this.lingering.size === 0 || Date.now() >= until) return this.lingering.size;
      await new Promise((resolve) => setTimeout(resolve, LINGER_POLL_MS));
    }
  }

  /**
   * The controllers this process can create child cgroups for; none is an answer too.
   * `runKey` names this server's groups across its runs (a hash of its data dir).
   */
  static detect(runKey: string): Cgroups {
    if (!/^[0-9a-f]+$/.test(runKey)) throw new Error(`a cgroup run key is hex (got ${runKey})`);
    const found = new Map<Controller, Hierarchy>();
    for (const controller of CONTROLLERS) {
      const hierarchy = findHierarchy(controller);
      if (hierarchy && canCreateUnder(hierarchy, controller, runKey)) {
        found.set(controller, hierarchy);
      }
    }
    return new Cgroups(found, runKey);
  }

  holds(controller: Controller): boolean {
    return this.hierarchies.has(controller);
  }

  /** A cgroup for one shell with `limits`, or null when no controller is available. */
  create(limits: CgroupLimits): ShellCgroup | null {
    const pids = this.hierarchies.get('pids');
    if (!pids) return null;
    const name = `${GROUP_PREFIX}${this.runKey}-${OWN_RUN}-${randomBytes(6).toString('hex')}`;
    const dirs = new Set<string>();
    const make = (hierarchy: Hierarchy): string => {
      const dir = join(hierarchy.base, name);
      if (!dirs.has(dir)) mkdirSync(dir);
      dirs.add(dir);
      return dir;
    };
    const cpu = this.hierarchies.get('cpu');
    try {
      writeFileSync(join(make(pids), 'pids.max'), String(limits.maxProcesses));
      const memory = this.hierarchies.get('memory');
      if (limits.maxMemoryBytes !== undefined && memory) {
        limitMemory(make(memory), memory.version, limits.maxMemoryBytes);
      }
      if (cpu) limitCpu(make(cpu), cpu.version, limits);
    } catch (error) {
      for (const dir of dirs) removeQuietly(dir);
      throw error;
    }
    const list = [...dirs];
    return {
      procFiles: list.map((dir) => join(dir, 'cgroup.procs')),
      members: () => readMembers(join(list[0] as string, 'cgroup.procs')),
      remove: () => {
        for (const dir of list) {
          removeQuietly(dir);
          // Still there while its members die (a stop): removed as they leave, and its share
          // is given back meanwhile.
          if (existsSync(dir)) this.lingering.add(dir);
        }
        if (!list.some((dir) => existsSync(dir))) this.yielded.delete(name);
      },
      yieldCpu: () => {
        if (cpu === undefined) return;
        const cpuDir = join(cpu.base, name);
        try {
          if (cpu.version === 2) writeFileSync(join(cpuDir, 'cpu.weight'), String(V2_MIN_WEIGHT));
          else writeFileSync(join(cpuDir, 'cpu.shares'), String(V1_MIN_SHARES));
        } catch {
          // Gone already, or refused: the stop goes on at the old share.
          return;
        }
        this.yielded.set(name, () => {
          try {
            limitCpu(cpuDir, cpu.version, { ...limits, cpuMax: undefined });
          } catch {
            // Removed meanwhile.
          }
        });
      },
    };
  }

  /**
   * Cgroups left by runs of this server on this data dir that died without shutting down,
   * and their processes. Groups of other data dirs, and those of live runs, are not ours.
   * `remove` removes the groups that are empty, and says whether all are gone; `membersNow`
   * reads who is in them now.
   */
  leftovers(): {
    members: Set<number>;
    groups: number;
    remove: () => boolean;
    membersNow: () => Set<number>;
  } {
    const members = new Set<number>();
    const dirs: string[] = [];
    for (const hierarchy of new Set(this.hierarchies.values())) {
      for (const entry of safeReaddir(hierarchy.base)) {
        const match = GROUP_NAME.exec(entry);
        if (!match || match[1] !== this.runKey || runAlive(Number(match[2]), match[3])) continue;
        const dir = join(hierarchy.base, entry);
        dirs.push(dir);
        for (const pid of readMembers(join(dir, 'cgroup.procs'))) members.add(pid);
      }
    }
    return {
      members,
      groups: dirs.length,
      // Whether every group is gone: one whose killed members have not all left yet stays.
      remove: () => {
        dirs.forEach(removeQuietly);
        return !dirs.some((dir) => existsSync(dir));
      },
      membersNow: () => {
        const now = new Set<number>();
        for (const dir of dirs)
          for (const pid of readMembers(join(dir, 'cgroup.procs'))) now.add(pid);
        return now;
      },
    };
  }
}

/** The limit, and no swap: a shell past its memory is stopped, never paged out for others. */
function limitMemory(dir: string, version: 1 | 2, bytes: number): void {
  if (version === 2) {
    writeFileSync(join(dir, 'memory.max'), String(bytes));
    // Only present where the kernel accounts swap; without it there is no swap to use.
    const swap = join(dir, 'memory.swap.max');
    if (existsSync(swap)) writeFileSync(swap, '0');
    return;
  }
  writeFileSync(join(dir, 'memory.limit_in_bytes'), String(bytes));
  // memsw is memory + swap: equal to the limit, nothing can go to swap. Without swap
  // accounting the file is absent; swappiness 0 then keeps the group's pages in RAM.
  const memsw = join(dir, 'memory.memsw.limit_in_bytes');
  if (existsSync(memsw)) writeFileSync(memsw, String(bytes));
  else writeFileSync(join(dir, 'memory.swappiness'), '0');
}

function limitCpu(dir: string, version: 1 | 2, limits: CgroupLimits): void {
  const quota = limits.cpuMax === undefined ? null : Math.round(limits.cpuMax * CPU_PERIOD_US);
  if (version === 2) {
    writeFileSync(join(dir, 'cpu.weight'), String(limits.cpuWeight));
    if (quota !== null) writeFileSync(join(dir, 'cpu.max'), `${quota} ${CPU_PERIOD_US}`);
    return;
  }
  const shares = Math.min(
    V1_MAX_SHARES,
    Math.max(V1_MIN_SHARES, Math.round(limits.cpuWeight * V1_SHARES_PER_WEIGHT)),
  );
  writeFileSync(join(dir, 'cpu.shares'), String(shares));
  if (quota !== null) {
    writeFileSync(join(dir, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
    writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
  }
}

function findHierarchy(controller: Controller): Hierarchy | null {
  const mounts = safeRead('/proc/self/mountinfo').split('\n');
  const groups = safeRead('/proc/self/cgroup').split('\n');
  for (const line of mounts) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const mountPoint = left.split(' ')[4];
    const [type, , options = ''] = right.split(' ');
    if (!mountPoint) continue;
    if (type === 'cgroup' && options.split(',').includes(controller)) {
      const path = groups
        .map((g) => g.split(':'))
        .find((g) => g[1]?.split(',').includes(controller))?.[2];
      if (path !== undefined) return { base: join(mountPoint, path), version: 1 };
    }
    if (type === 'cgroup2') {
      const controllers = safeRead(join(mountPoint, 'cgroup.controllers')).split(/\s+/);
      const path = groups.find((g) => g.startsWith('0::'))?.slice(3);
      if (path !== undefined && controllers.includes(controller)) {
        return { base: join(mountPoint, path), version: 2 };
      }
    }
  }
  return null;
}

/** The file a controller's limit is set in, by version: its presence proves the controller. */
function limitFile(controller: Controller, version: 1 | 2): string {
  switch (controller) {
    case 'pids':
      return 'pids.max';
    case 'memory':
      return version === 2 ? 'memory.max' : 'memory.limit_in_bytes';
    case 'cpu':
      return version === 2 ? 'cpu.weight' : 'cpu.shares';
  }
}

/** Tries it: creating a probe group and finding the controller's file in it. */
function canCreateUnder(hierarchy: Hierarchy, controller: Controller, runKey: string): boolean {
  const probe = join(hierarchy.base, `${GROUP_PREFIX}${runKey}-${process.pid}-probe`);
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  const usable = existsSync(join(probe, limitFile(controller, hierarchy.version)));
  removeQuietly(probe);
  return usable;
}

function readMembers(procs: string): Set<number> {
  const pids = new Set<number>();
  for (const line of safeRead(procs).split('\n')) if (/^\d+$/.test(line)) pids.add(Number(line));
  return pids;
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

function removeQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Still has members (they are being killed) or already gone: retried by removeLingering,
    // and at the next start.
  }
}
