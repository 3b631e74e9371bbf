/**
 * The start-up banner's lines about where shells run and what bounds them: one line each for
 * the sandbox and network, memory, tmpfs, CPU and the workspace quota, saying which mechanism
 * holds each bound (or that none does), and warnings where the operator chose less isolation.
 */

import type { ChosenLauncher } from './choose-launcher.ts';
import type { ShellResources } from './shell-resources.ts';

const KIB = 1024;
const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `4 GiB`, `1.5 GiB`, `512 MiB`: the largest unit that leaves at least 1. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= KIB && unit < UNITS.length - 1) {
    value /= KIB;
    unit++;
  }
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${shown} ${UNITS[unit]}`;
}

const NETWORK_WORDS = {
  on: 'network on (own namespace, egress only)',
  off: 'loopback only',
  host: "host network (the host's loopback included)",
} as const;

export function placementLines(placement: ChosenLauncher, resources: ShellResources): string[] {
  const sandboxed = placement.launcher.kind === 'bwrap';
  const lines = [
    `shells: ${sandboxed ? 'sandboxed (bubblewrap)' : 'unsandboxed'}, ${NETWORK_WORDS[placement.network]}, process limit ${placement.limits === 'none' ? 'not enforced' : `by ${placement.limits}`}`,
    memoryLine(placement, resources),
  ];
  if (sandboxed)
    lines.push(`tmpfs: ${formatBytes(resources.tmpSizeBytes)} each (/tmp, /dev/shm, hidden dirs)`);
  lines.push(cpuLine(placement, resources));
  lines.push(
    'why' in placement.quota
      ? 'workspace quota not enforced'
      : `workspace quota: ${formatBytes(resources.workspaceQuotaBytes ?? 0)} per workspace (a loop-mounted ext4 of its own)`,
  );
  if (placement.warning !== null) lines.push(`warning: ${placement.warning}`);
  if (placement.networkWarning !== null) lines.push(`warning: ${placement.networkWarning}`);
  if (sandboxed && placement.network === 'host') {
    lines.push(
      "warning: --network host: shells reach the host's loopback services (this server's port included) and each other's listeners and abstract sockets",
    );
  }
  return lines;
}

function memoryLine(placement: ChosenLauncher, resources: ShellResources): string {
  if (resources.maxMemoryBytes === undefined) return 'memory: not limited (--max-memory off)';
  const size = formatBytes(resources.maxMemoryBytes);
  return placement.memory === 'cgroup'
    ? `memory: ${size} per shell by cgroup, tmpfs files included, no swap`
    : `memory: ${size} per process by rlimit (RLIMIT_AS; no memory cgroup can be made here)`;
}

function cpuLine(placement: ChosenLauncher, resources: ShellResources): string {
  if (placement.cpu === 'none') return 'cpu: weight not enforced (no cpu cgroup can be made here)';
  const cap = resources.cpuMax === undefined ? '' : `, at most ${resources.cpuMax} CPUs`;
  return `cpu: weight ${resources.cpuWeight}${cap} per shell by cgroup`;
}
