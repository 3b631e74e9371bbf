/**
 * Per-shell cgroups, where the host lets this server create them (as root, or where a
 * cgroup is delegated to its user): a `pids` limit that a fork bomb cannot pass, an
 * optional memory limit for the shell's whole tree, and a membership list that `setsid` or a
 * double fork cannot leave, so a reset ends every process the shell started.
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

/** Our cgroups are named `jumpseat-<server pid>-<random>`; the pid tells a live run's from a dead one's. */
const GROUP_PREFIX = 'jumpseat-';
const GROUP_NAME = /^jumpseat-(\d+)-[0-9a-f]+$/;

type Controller = 'pids' | 'memory';

interface Hierarchy {
  /** The cgroup directory this server runs in, in that hierarchy. */
  readonly base: string;
  readonly version: 1 | 2;
}

export interface CgroupLimits {
  readonly maxProcesses: number;
  /** Undefined: no memory limit. */
  readonly maxMemoryBytes: number | undefined;
}

/** One shell's cgroups (one directory per hierarchy involved). */
export interface ShellCgroup {
  /** The `cgroup.procs` files the shell's first process writes its pid into. */
  readonly procFiles: readonly string[];
  members(): Set<number>;
  /** Removes the directories (they must be empty of processes by then). */
  remove(): void;
}

export class Cgroups {
  private constructor(private readonly hierarchies: ReadonlyMap<Controller, Hierarchy>) {}

  /** The controllers this process can create child cgroups for; none is an answer too. */
  static detect(): Cgroups {
    const found = new Map<Controller, Hierarchy>();
    for (const controller of ['pids', 'memory'] as const) {
      const hierarchy = findHierarchy(controller);
      if (hierarchy && canCreateUnder(hierarchy, controller)) found.set(controller, hierarchy);
    }
    return new Cgroups(found);
  }

  holds(controller: Controller): boolean {
    return this.hierarchies.has(controller);
  }

  /** A cgroup for one shell with `limits`, or null when no controller is available. */
  create(limits: CgroupLimits): ShellCgroup | null {
    const pids = this.hierarchies.get('pids');
    if (!pids) return null;
    const name = `${GROUP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`;
    const dirs = new Set<string>();
    const make = (hierarchy: Hierarchy): string => {
      const dir = join(hierarchy.base, name);
      if (!dirs.has(dir)) mkdirSync(dir);
      dirs.add(dir);
      return dir;
    };
    try {
      const pidsDir = make(pids);
      if (limits.maxProcesses !== undefined)
        writeFileSync(join(pidsDir, 'pids.max'), String(limits.maxProcesses));
      const memory = this.hierarchies.get('memory');
      if (limits.maxMemoryBytes !== undefined && memory) {
        const memoryDir = make(memory);
        const file = memory.version === 2 ? 'memory.max' : 'memory.limit_in_bytes';
        writeFileSync(join(memoryDir, file), String(limits.maxMemoryBytes));
        if (memory.version === 2) writeFileSync(join(memoryDir, 'memory.swap.max'), '0');
      }
    } catch (error) {
      for (const dir of dirs) removeQuietly(dir);
      throw error;
    }
    const list = [...dirs];
    return {
      procFiles: list.map((dir) => join(dir, 'cgroup.procs')),
      members: () => readMembers(join(list[0] as string, 'cgroup.procs')),
      remove: () => {
        for (const dir of list) removeQuietly(dir);
      },
    };
  }

  /** Cgroups left by runs of this server that died without shutting down: their processes. */
  leftovers(): { members: Set<number>; remove: () => void } {
    const members = new Set<number>();
    const dirs: string[] = [];
    for (const hierarchy of new Set(this.hierarchies.values())) {
      for (const entry of safeReaddir(hierarchy.base)) {
        const match = GROUP_NAME.exec(entry);
        if (!match || processAlive(Number(match[1]))) continue;
        const dir = join(hierarchy.base, entry);
        dirs.push(dir);
        for (const pid of readMembers(join(dir, 'cgroup.procs'))) members.add(pid);
      }
    }
    return { members, remove: () => dirs.forEach(removeQuietly) };
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

/** Tries it: creating a probe group and finding the controller's file in it. */
function canCreateUnder(hierarchy: Hierarchy, controller: Controller): boolean {
  const probe = join(hierarchy.base, `${GROUP_PREFIX}${process.pid}-probe`);
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  const file =
    controller === 'pids'
      ? 'pids.max'
      : hierarchy.version === 2
        ? 'memory.max'
        : 'memory.limit_in_bytes';
  const usable = existsSync(join(probe, file));
  removeQuietly(probe);
  return usable;
}

function readMembers(procs: string): Set<number> {
  const pids = new Set<number>();
  for (const line of safeRead(procs).split('\n')) if (/^\d+$/.test(line)) pids.add(Number(line));
  return pids;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
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
    // Still has members (they are being killed) or already gone: retried at the next start.
  }
}
