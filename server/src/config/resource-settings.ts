/**
 * What one shell may use of the host, read from flags: processes, memory, tmpfs, CPU, its
 * workspace's disk, and which network it reaches. Every bound has a default, so a shell is
 * bounded unless the operator says otherwise (`off`); enforced in launch/.
 */
import { DEFAULT_CPU_WEIGHT } from '../launch/cgroups.ts';
import { NETWORK_MODES } from '../launch/sandbox-network.ts';
import type { ShellResources } from '../launch/shell-resources.ts';
import { ConfigError } from './config-error.ts';
import type { FlagName } from './flags.ts';
import { byteSize, got, oneOf, positiveInteger, type Setting } from './setting-values.ts';

/** What one shell may use of the host; the launcher holds each bound (launch/shell-resources.ts). */
export type ResourceSettings = ShellResources;

export const DEFAULT_MAX_PROCESSES = 1024;
/** Fewer processes than this cannot run a shell and a pipeline. */
const MIN_MAX_PROCESSES = 16;
/** A limit the kernel still takes (pids.max is an int). */
const MAX_MAX_PROCESSES = 4_194_304;
/** Enough for a build or a test run; a runaway stops here instead of at the host's OOM killer. */
export const DEFAULT_MAX_MEMORY_BYTES = 4 * 1024 ** 3;
/** Below this, neither bash nor pwsh starts. */
const MIN_MAX_MEMORY_BYTES = 64 * 1024 * 1024;
/** Room for a build's temporary files; tmpfs is RAM, so it is counted in the memory limit. */
export const DEFAULT_TMP_SIZE_BYTES = 1024 ** 3;
/** Below this, bash's here-documents and sort's temporary files fail. */
const MIN_TMP_SIZE_BYTES = 1024 * 1024;
/** cgroup v2 takes weights from 1 to 10000. */
const MAX_CPU_WEIGHT = 10_000;
/** A cap below 1% of a CPU starves a shell of its own prompt. */
const MIN_CPU_MAX = 0.01;
/** More CPUs than any host has: past it the value is a typo. */
const MAX_CPU_MAX = 4096;
export const DEFAULT_WORKSPACE_QUOTA_BYTES = 10 * 1024 ** 3;
/** An ext4 file system smaller than this holds little beyond its own journal. */
const MIN_WORKSPACE_QUOTA_BYTES = 16 * 1024 * 1024;

const OFF = 'off';

export function readResourceSettings(
  read: (name: FlagName) => Setting | undefined,
): ResourceSettings {
  return {
    network: oneOf(read('network'), NETWORK_MODES, 'on'),
    maxProcesses: positiveInteger(
      read('max-processes'),
      DEFAULT_MAX_PROCESSES,
      MAX_MAX_PROCESSES,
      MIN_MAX_PROCESSES,
    ),
    maxMemoryBytes: sizeOrOff(read('max-memory'), DEFAULT_MAX_MEMORY_BYTES, MIN_MAX_MEMORY_BYTES),
    tmpSizeBytes: byteSize(read('tmp-size'), MIN_TMP_SIZE_BYTES) ?? DEFAULT_TMP_SIZE_BYTES,
    cpuWeight: positiveInteger(read('cpu-weight'), DEFAULT_CPU_WEIGHT, MAX_CPU_WEIGHT),
    cpuMax: cpus(read('cpu-max')),
    workspaceQuotaBytes: sizeOrOff(
      read('workspace-quota'),
      DEFAULT_WORKSPACE_QUOTA_BYTES,
      MIN_WORKSPACE_QUOTA_BYTES,
    ),
  };
}

/** A size, or `off` for none; unset: the default. */
function sizeOrOff(
  setting: Setting | undefined,
  fallback: number,
  min: number,
): number | undefined {
  if (setting === undefined) return fallback;
  if (setting.raw.trim().toLowerCase() === OFF) return undefined;
  return byteSize(setting, min);
}

/** A number of CPUs such as `1`, `0.5` or `2.25`, or `off`; unset: no cap. */
function cpus(setting: Setting | undefined): number | undefined {
  if (setting === undefined || setting.raw.trim().toLowerCase() === OFF) return undefined;
  const value = /^[0-9]+(\.[0-9]+)?$/.test(setting.raw.trim()) ? Number(setting.raw) : Number.NaN;
  if (!(value >= MIN_CPU_MAX && value <= MAX_CPU_MAX)) {
    throw new ConfigError(
      `${setting.source} must be a number of CPUs from ${MIN_CPU_MAX} to ${MAX_CPU_MAX}, such as 1.5, or off ${got(setting)}`,
    );
  }
  return value;
}
