/** The bounds of what one shell may use of the host, as the launcher holds them. */
import type { NetworkMode } from './sandbox-network.ts';

export interface ShellResources {
  /** `on`: a network namespace of its own with egress; `off`: loopback only; `host`: the host's. */
  readonly network: NetworkMode;
  /** Processes one shell may have at once. */
  readonly maxProcesses: number;
  /** Memory one shell may use (its processes and what it writes to tmpfs), in bytes; undefined for none. */
  readonly maxMemoryBytes: number | undefined;
  /** Size of each tmpfs a sandbox mounts (/tmp, /dev/shm and the hiding ones), in bytes. */
  readonly tmpSizeBytes: number;
  /** Relative CPU share of one shell (cgroup v2 `cpu.weight`, 1-10000). */
  readonly cpuWeight: number;
  /** CPUs' worth of time one shell may use at most; undefined: no cap beyond the weight. */
  readonly cpuMax: number | undefined;
  /** Disk one agent's workspace may hold, in bytes; undefined: no quota. */
  readonly workspaceQuotaBytes: number | undefined;
}
